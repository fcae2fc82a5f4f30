package eval

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// From review to tests ("Make a suite from these"): each turn a review
// filter picks becomes a case that starts from that recorded turn
// (Case.From, the field time travel's cases use), so the case runs the
// turn's own message and conversation, and what came before its step is
// served from the recording. What the review said becomes what the case
// expects:
//
//   - A turn rated down (a thumb down on it or on a step, or a score of 1
//     or 2 with no thumb up) must not do again what the reviewer found:
//     labels the suite language can express become those assertions
//     (ReviewLabelRules), and the note with the other labels becomes a
//     judge rubric, judged by JudgeModel.
//   - Any other turn keeps its answer as a similar_to reference, as
//     FromTurn does.
//
// Every case also asserts termination: {not_limit: true}.

// ReviewSource is what making a suite from reviews reads: the turns a
// filter picks, each turn whole (its full answer), and its session (the
// provider it ran on). *store.DB is one.
type ReviewSource interface {
	ListReviewed(ctx context.Context, f store.ReviewFilter) ([]store.ReviewedTurn, error)
	GetTurn(ctx context.Context, id string, withEvents bool) (store.TurnDetail, error)
	GetSession(ctx context.Context, id string) (store.Session, error)
}

// ReviewSuiteOptions name the suite made from reviews. Models defaults to
// the "provider/model" of each turn's session, in the order first met;
// JudgeModel (the critic of a rubric made from a note) to the first model.
type ReviewSuiteOptions struct {
	Name       string
	Models     []string
	JudgeModel string
}

// A ReviewLabelRule turns a label of a rated-down review into an
// assertion: Pattern is matched against the whole label (lower case, as
// labels are kept); its first group, if any, is the tool's name.
type ReviewLabelRule struct {
	Pattern *regexp.Regexp
	// Expect is the documented meaning, shown in docs and help.
	Expect string
	Assert func(m []string) Assert
}

// ReviewLabelRules are the labels a suite can express, in the order tried;
// any other label goes into the judge's rubric with the note.
var ReviewLabelRules = []ReviewLabelRule{
	{regexp.MustCompile(`^(?:should use|should call|use|needs|missing tool:?) ([a-z0-9_.-]+)$`), "tool_called: {name: X}",
		func(m []string) Assert { return Assert{ToolCalled: &ToolCalled{Name: m[1]}} }},
	{regexp.MustCompile(`^(?:missing chart|no chart|should chart)$`), "chart: true",
		func([]string) Assert { return Assert{Chart: ptrTo(true)} }},
	{regexp.MustCompile(`^(?:unwanted chart|needless chart)$`), "chart: false",
		func([]string) Assert { return Assert{Chart: ptrTo(false)} }},
	{regexp.MustCompile(`^(?:hit a limit|loop|looped|looping|stalled|stuck)$`), "termination: {not_limit: true} (always asserted)",
		func([]string) Assert { return Assert{Termination: &TerminationRule{NotLimit: true}} }},
}

// SuiteFromReviewed makes a suite of the turns f picks, one case each, in
// the order listed (newest first). No turn picked is NotFound, saying so.
func SuiteFromReviewed(ctx context.Context, src ReviewSource, f store.ReviewFilter, o ReviewSuiteOptions) (Suite, error) {
	turns, err := src.ListReviewed(ctx, f)
	if err != nil {
		return Suite{}, err
	}
	if len(turns) == 0 {
		return Suite{}, apperr.New(apperr.NotFound, "No turns match the filter: widen it (another rating, label or dates) and try again.")
	}
	s := Suite{Name: strings.TrimSpace(o.Name), Models: o.Models}
	if s.Name == "" {
		s.Name = "from-reviews"
	}
	for _, rt := range turns {
		t, err := src.GetTurn(ctx, rt.TurnID, false)
		if err != nil {
			return Suite{}, err
		}
		sess, err := src.GetSession(ctx, rt.SessionID)
		if err != nil {
			return Suite{}, err
		}
		if len(o.Models) == 0 && sess.Provider != "" && t.Model != "" {
			if m := sess.Provider + "/" + t.Model; !slices.Contains(s.Models, m) {
				s.Models = append(s.Models, m)
			}
		}
		s.Cases = append(s.Cases, reviewCase(rt, t.FinalText))
	}
	if len(s.Models) == 0 {
		return Suite{}, apperr.New(apperr.Invalid, "The turns picked do not say which provider ran them: name the models to run the suite on.")
	}
	judge := o.JudgeModel
	if judge == "" {
		judge = s.Models[0]
	}
	ids := map[string]int{}
	for i := range s.Cases {
		c := &s.Cases[i]
		for _, a := range c.Assert {
			if a.Judge != nil {
				a.Judge.Model = judge
			}
		}
		if n := ids[c.ID]; n > 0 {
			c.ID = fmt.Sprintf("%s-%d", c.ID, n+1)
		}
		ids[c.ID]++
	}
	return s, nil
}

// ReviewCaseID is the id of the case made from a turn: the message's first
// words and the turn id's last 8 characters (its random part: ids begin
// with the time), so making the suite again gives the same ids and two
// turns with one message differ.
func ReviewCaseID(message, turnID string) string {
	words := caseID(message)
	if len(words) > 40 {
		words = strings.TrimRight(words[:40], "-")
	}
	var tail []rune
	for _, r := range strings.ToLower(turnID) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			tail = append(tail, r)
		}
	}
	if len(tail) == 0 {
		return words
	}
	return words + "-" + string(tail[max(0, len(tail)-8):])
}

// reviewCase is the case of one reviewed turn whose full answer is answer.
func reviewCase(rt store.ReviewedTurn, answer string) Case {
	down := downReviews(rt.Reviews)
	c := Case{ID: ReviewCaseID(rt.UserMessage, rt.TurnID), From: &CaseFrom{Turn: rt.TurnID, Step: "start"}}
	if len(down) == 0 {
		c.Description = describeReview(rt, "kept", upReview(rt.Reviews))
		threshold := 0.5
		if a := strings.TrimSpace(answer); a != "" {
			c.Assert = append(c.Assert, Assert{SimilarTo: &Similarity{Reference: a, Measure: MeasureTokenF1, Threshold: &threshold}})
		}
		c.Assert = append(c.Assert, Assert{Termination: &TerminationRule{NotLimit: true}})
		return c
	}
	c.From.Step = startStep(down)
	c.Description = describeReview(rt, "rated down", down[0])
	var rubricLabels, notes []string
	have := map[string]bool{}
	for _, r := range down {
		if r.Note != "" {
			notes = append(notes, r.Note)
		}
		for _, l := range r.Labels {
			a, ok := labelAssert(l)
			if !ok {
				rubricLabels = append(rubricLabels, l)
				continue
			}
			if k := assertKey(a); !have[k] {
				have[k] = true
				c.Assert = append(c.Assert, a)
			}
		}
	}
	if len(notes) > 0 || len(rubricLabels) > 0 {
		c.Assert = append(c.Assert, Assert{Judge: &JudgeRule{Rubric: reviewRubric(notes, rubricLabels)}})
	}
	if !have["termination"] {
		c.Assert = append(c.Assert, Assert{Termination: &TerminationRule{NotLimit: true}})
	}
	return c
}

// labelAssert is the assertion a label stands for, if it is one.
func labelAssert(label string) (Assert, bool) {
	for _, r := range ReviewLabelRules {
		if m := r.Pattern.FindStringSubmatch(label); m != nil {
			return r.Assert(m), true
		}
	}
	return Assert{}, false
}

// assertKey tells apart the assertions labels make, to make each once.
func assertKey(a Assert) string {
	switch {
	case a.ToolCalled != nil:
		return "tool_called " + a.ToolCalled.Name
	case a.Chart != nil:
		return "chart " + strconv.FormatBool(*a.Chart)
	}
	return a.Kind()
}

// downReviews are the reviews that rate the turn down: a thumb down, or
// a score of 1 or 2 when nothing was rated up. The turn's own comes first.
func downReviews(rs []turn.Review) []turn.Review {
	var down, low []turn.Review
	up := false
	for _, r := range rs {
		switch {
		case r.Thumb < 0:
			down = append(down, r)
		case r.Thumb > 0:
			up = true
		case r.Score > 0 && r.Score <= 2:
			low = append(low, r)
		}
	}
	if len(down) == 0 && !up {
		down = low
	}
	slices.SortStableFunc(down, func(a, b turn.Review) int { return strings.Compare(a.Step, b.Step) })
	return down
}

// upReview is the review that best says why a turn is kept: its own.
func upReview(rs []turn.Review) turn.Review {
	for _, r := range rs {
		if r.Step == "" {
			return r
		}
	}
	if len(rs) > 0 {
		return rs[0]
	}
	return turn.Review{}
}

// startStep is the step a rated-down turn's case starts from. A review of
// the whole turn, or of a tool step (the tool was asked for by the call
// before it), starts it from the start; a review of stage or call steps
// only starts it from the earliest of them when they are all of one kind,
// so the steps before it are served from the recording and the step the
// reviewer faulted runs again live on the model under test.
func startStep(down []turn.Review) string {
	kind, best := "", 0
	for _, r := range down {
		k := strings.TrimRight(r.Step, "0123456789")
		n, _ := strconv.Atoi(r.Step[len(k):])
		switch {
		case k == "" || k == "tool", kind != "" && k != kind:
			return "start"
		case kind == "" || n < best:
			kind, best = k, n
		}
	}
	if kind == "" {
		return "start"
	}
	return kind + strconv.Itoa(best)
}

// describeReview names the turn and its review: `turn 3 of "Sales":
// rated down at tool2: wrong tool — asked twice`.
func describeReview(rt store.ReviewedTurn, verdict string, r turn.Review) string {
	var b strings.Builder
	fmt.Fprintf(&b, "turn %d of %q (%s): %s", rt.Seq, rt.SessionTitle, rt.TurnID, verdict)
	if r.Step != "" {
		b.WriteString(" at " + r.Step)
	}
	if r.Score > 0 {
		fmt.Fprintf(&b, ", score %d", r.Score)
	}
	if len(r.Labels) > 0 {
		b.WriteString(": " + strings.Join(r.Labels, ", "))
	}
	if note := firstLineOf(r.Note, 80); note != "" {
		b.WriteString(" — " + note)
	}
	return b.String()
}

// reviewRubric asks the critic to fail an answer that repeats what the
// reviewer found wrong.
func reviewRubric(notes, labels []string) string {
	var b strings.Builder
	b.WriteString("A reviewer rated an earlier answer to this same message down. Fail the answer if it repeats what they found wrong; pass it if it avoids that and still answers the message.")
	if len(notes) > 0 {
		b.WriteString("\nWhat the reviewer wrote: " + strings.Join(notes, "\n"))
	}
	if len(labels) > 0 {
		b.WriteString("\nThe reviewer's labels: " + strings.Join(labels, ", ") + ".")
	}
	return b.String()
}

// firstLineOf is s's first line, cut to at most n characters.
func firstLineOf(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if r := []rune(s); len(r) > n {
		return strings.TrimSpace(string(r[:n-1])) + "…"
	}
	return s
}

func ptrTo[T any](v T) *T { return &v }
