package turn

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// Review is a person's judgement of a turn, or of one step of it: thumbs
// up or down, an optional score, labels and a note. A turn has at most one
// review of itself and one of each step; saving again replaces it, and a
// review that says nothing (Empty) is removed.
type Review struct {
	ID     string `json:"id"`
	TurnID string `json:"turn_id"`
	// Step is the step reviewed, by its timeline id ("stage2", "call3",
	// "tool1"); "" is the whole turn.
	Step string `json:"step"`
	// Thumb is +1 (up), -1 (down) or 0 (neither).
	Thumb int `json:"thumb"`
	// Score is 1 to 5, or 0 for none.
	Score int `json:"score"`
	// Labels are lower-case words or short phrases, sorted, each once.
	Labels    []string  `json:"labels"`
	Note      string    `json:"note"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// Limits of a review.
const (
	MaxReviewNote   = 4000
	MaxReviewLabels = 20
	MaxLabelLen     = 40
)

var stepID = regexp.MustCompile(`^(stage|call|tool)[1-9][0-9]{0,5}$`)

// Empty reports whether the review says nothing: saving it removes it.
func (r Review) Empty() bool {
	return r.Thumb == 0 && r.Score == 0 && len(r.Labels) == 0 && r.Note == ""
}

// Normalize trims the note, lower-cases, trims, sorts and de-duplicates
// the labels, and checks every field, returning an error a person can act
// on.
func (r Review) Normalize() (Review, error) {
	if r.TurnID == "" {
		return r, fmt.Errorf("a review must name the turn it is of")
	}
	if r.Step != "" && !stepID.MatchString(r.Step) {
		return r, fmt.Errorf("%q is not a step of a turn: use stage2, call3, tool1 or nothing for the whole turn", r.Step)
	}
	if r.Thumb < -1 || r.Thumb > 1 {
		return r, fmt.Errorf("thumb must be 1 (up), -1 (down) or 0, not %d", r.Thumb)
	}
	if r.Score < 0 || r.Score > 5 {
		return r, fmt.Errorf("score must be 1 to 5, or 0 for none, not %d", r.Score)
	}
	r.Note = strings.TrimSpace(r.Note)
	if len(r.Note) > MaxReviewNote {
		return r, fmt.Errorf("the note is too long (%d bytes; at most %d)", len(r.Note), MaxReviewNote)
	}
	labels, err := NormalizeLabels(r.Labels)
	if err != nil {
		return r, err
	}
	r.Labels = labels
	return r, nil
}

// NormalizeLabels lower-cases and trims each label, folds inner runs of
// space to one, drops empty ones and duplicates, and sorts them.
func NormalizeLabels(in []string) ([]string, error) {
	seen := make(map[string]bool, len(in))
	out := []string{}
	for _, l := range in {
		l = strings.Join(strings.Fields(strings.ToLower(l)), " ")
		if l == "" || seen[l] {
			continue
		}
		if utf8.RuneCountInString(l) > MaxLabelLen {
			return nil, fmt.Errorf("the label %q is too long (at most %d characters)", l, MaxLabelLen)
		}
		if strings.ContainsAny(l, ",\x00") {
			return nil, fmt.Errorf("the label %q has a comma: give each label on its own", l)
		}
		seen[l] = true
		out = append(out, l)
	}
	if len(out) > MaxReviewLabels {
		return nil, fmt.Errorf("a review has at most %d labels, not %d", MaxReviewLabels, len(out))
	}
	slices.Sort(out)
	return out, nil
}

// UnmarshalJSON reads a review as encoding/json does, except that an
// empty created_at or updated_at reads as no time: a review the UI has
// not saved yet has none, and saving sets both.
func (r *Review) UnmarshalJSON(b []byte) error {
	type plain Review
	var v struct {
		*plain
		CreatedAt string `json:"created_at"`
		UpdatedAt string `json:"updated_at"`
	}
	v.plain = (*plain)(r)
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	for _, f := range []struct {
		s  string
		to *time.Time
	}{{v.CreatedAt, &r.CreatedAt}, {v.UpdatedAt, &r.UpdatedAt}} {
		*f.to = time.Time{}
		if f.s == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339Nano, f.s)
		if err != nil {
			return fmt.Errorf("a review's time %q is not an RFC 3339 time", f.s)
		}
		*f.to = t
	}
	return nil
}
