package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/turn"
)

func mustReview(t *testing.T, db *DB, r turn.Review) turn.Review {
	t.Helper()
	r, err := db.SaveReview(ctx, r)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSaveReviewReplacesAndEmptyRemoves(t *testing.T) {
	db := mustOpen(t)
	s := newSession(t, db, "reviewed")
	tr, _ := storeTurn(t, db, s.ID, "hello", "hi")

	first := mustReview(t, db, turn.Review{TurnID: tr.ID, Thumb: -1, Labels: []string{" Wrong Tool ", "wrong tool", "Slow"}, Note: "  used the calculator for a date  "})
	if first.ID == "" || !reflect.DeepEqual(first.Labels, []string{"slow", "wrong tool"}) || first.Note != "used the calculator for a date" {
		t.Fatalf("saved = %+v", first)
	}
	step := mustReview(t, db, turn.Review{TurnID: tr.ID, Step: "tool1", Thumb: -1, Score: 2})
	second := mustReview(t, db, turn.Review{TurnID: tr.ID, Thumb: 1, Score: 4, Labels: []string{"slow"}})
	if second.ID != first.ID || !second.CreatedAt.Equal(first.CreatedAt) {
		t.Errorf("a second review of the turn got id %s created %v, want the first's %s %v", second.ID, second.CreatedAt, first.ID, first.CreatedAt)
	}
	got, err := db.ReviewsFor(ctx, []string{tr.ID, "no-such-turn"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Step != "" || got[0].Thumb != 1 || got[0].Score != 4 || got[0].Note != "" || got[1].Step != "tool1" || got[1].ID != step.ID {
		t.Fatalf("reviews = %+v", got)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM review_labels WHERE review_id = ?`, first.ID); n != 1 {
		t.Errorf("review_labels has %d rows for the replaced review, want 1 (slow)", n)
	}

	gone := mustReview(t, db, turn.Review{TurnID: tr.ID, Step: "tool1"})
	if gone.ID != "" {
		t.Errorf("an empty review came back with id %q", gone.ID)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM reviews WHERE turn_id = ?`, tr.ID); n != 1 {
		t.Errorf("%d reviews after emptying the step's, want 1", n)
	}
}

func TestSaveReviewRefusesBadInput(t *testing.T) {
	db := mustOpen(t)
	s := newSession(t, db, "reviewed")
	tr, _ := storeTurn(t, db, s.ID, "hello", "hi")
	tests := []struct {
		name string
		r    turn.Review
		code apperr.Code
		want string
	}{
		{"no turn", turn.Review{Thumb: 1}, apperr.Invalid, "name the turn"},
		{"unknown turn", turn.Review{TurnID: "nope", Thumb: 1}, apperr.NotFound, "no turn nope"},
		{"bad thumb", turn.Review{TurnID: tr.ID, Thumb: 2}, apperr.Invalid, "Thumb must be"},
		{"bad score", turn.Review{TurnID: tr.ID, Score: 6}, apperr.Invalid, "1 to 5"},
		{"bad step", turn.Review{TurnID: tr.ID, Step: "stage0", Thumb: 1}, apperr.Invalid, "not a step"},
		{"long note", turn.Review{TurnID: tr.ID, Note: strings.Repeat("x", turn.MaxReviewNote+1)}, apperr.Invalid, "too long"},
		{"comma label", turn.Review{TurnID: tr.ID, Labels: []string{"a,b"}}, apperr.Invalid, "comma"},
		{"long label", turn.Review{TurnID: tr.ID, Labels: []string{strings.Repeat("x", turn.MaxLabelLen+1)}}, apperr.Invalid, "too long"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := db.SaveReview(ctx, tt.r)
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != tt.code || !strings.Contains(ae.Error(), tt.want) {
				t.Fatalf("err = %v, want %s containing %q", err, tt.code, tt.want)
			}
		})
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM reviews`); n != 0 {
		t.Errorf("%d reviews stored by refused saves", n)
	}
}

func TestListReviewedFilters(t *testing.T) {
	db := mustOpen(t)
	s := newSession(t, db, "chat")
	other := newSession(t, db, "other")
	good, _ := storeTurn(t, db, s.ID, "q1", "a good answer")
	bad, _ := storeTurn(t, db, s.ID, "q2", "a bad answer")
	badStep, _ := storeTurn(t, db, other.ID, "q3", "an answer with a bad step")
	plain, _ := storeTurn(t, db, other.ID, "q4", "nobody looked at this")
	mustReview(t, db, turn.Review{TurnID: good.ID, Thumb: 1, Score: 5, Labels: []string{"helpful"}})
	mustReview(t, db, turn.Review{TurnID: bad.ID, Thumb: -1, Score: 1, Labels: []string{"wrong tool", "hallucinated"}})
	mustReview(t, db, turn.Review{TurnID: badStep.ID, Step: "tool1", Thumb: -1, Labels: []string{"wrong tool"}})
	future := time.Now().Add(time.Hour)

	tests := []struct {
		name string
		f    ReviewFilter
		want []string
	}{
		{"every ended turn", ReviewFilter{}, []string{plain.ID, badStep.ID, bad.ID, good.ID}},
		{"rated down, a step counts", ReviewFilter{Rated: RatedDown}, []string{badStep.ID, bad.ID}},
		{"rated up", ReviewFilter{Rated: RatedUp}, []string{good.ID}},
		{"reviewed", ReviewFilter{Rated: RatedReviewed}, []string{badStep.ID, bad.ID, good.ID}},
		{"unreviewed", ReviewFilter{Rated: RatedUnreviewed}, []string{plain.ID}},
		{"label, any case", ReviewFilter{Label: "Wrong  Tool"}, []string{badStep.ID, bad.ID}},
		{"label in one session", ReviewFilter{Label: "wrong tool", SessionID: s.ID}, []string{bad.ID}},
		{"score at least 4", ReviewFilter{MinScore: 4}, []string{good.ID}},
		{"score at most 2", ReviewFilter{MaxScore: 2}, []string{bad.ID}},
		{"since the future", ReviewFilter{Since: &future}, nil},
		{"until the future", ReviewFilter{Until: &future, Rated: RatedDown}, []string{badStep.ID, bad.ID}},
		{"limit", ReviewFilter{Limit: 1}, []string{plain.ID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := db.ListReviewed(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, r := range got {
				ids = append(ids, r.TurnID)
			}
			if !reflect.DeepEqual(ids, tt.want) {
				t.Fatalf("turns = %v, want %v", ids, tt.want)
			}
		})
	}
	got, err := db.ListReviewed(ctx, ReviewFilter{Rated: RatedDown, SessionID: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Answer != "a bad answer" || got[0].UserMessage != "q2" || got[0].SessionTitle != "chat" || len(got[0].Reviews) != 1 || got[0].Reviews[0].Score != 1 {
		t.Fatalf("rated down = %+v", got)
	}
	if _, err := db.ListReviewed(ctx, ReviewFilter{Rated: "meh"}); err == nil || !strings.Contains(err.Error(), "not a rating") {
		t.Errorf("a bad rating gave %v", err)
	}
}

func TestListReviewedCutsLongAnswersAtACharacter(t *testing.T) {
	db := mustOpen(t)
	s := newSession(t, db, "long")
	storeTurn(t, db, s.ID, "q", strings.Repeat("é", AnswerPreview))
	got, err := db.ListReviewed(ctx, ReviewFilter{})
	if err != nil {
		t.Fatal(err)
	}
	a := got[0].Answer
	if !strings.HasSuffix(a, "…") || len(a) > AnswerPreview+len("…") || !strings.HasPrefix(a, "éé") || strings.ContainsRune(a, '\uFFFD') {
		t.Fatalf("answer preview is %d bytes: %.20q…", len(a), a)
	}
}

func TestReviewLabelsCompleteByUse(t *testing.T) {
	db := mustOpen(t)
	s := newSession(t, db, "labels")
	for i, labels := range [][]string{{"wrong tool", "slow"}, {"wrong tool"}, {"wordy"}} {
		tr, _ := storeTurn(t, db, s.ID, "q", "a")
		mustReview(t, db, turn.Review{TurnID: tr.ID, Labels: labels, Score: i + 1})
	}
	got, err := db.ReviewLabels(ctx, "W", 0)
	if err != nil {
		t.Fatal(err)
	}
	want := []LabelCount{{"wrong tool", 2}, {"wordy", 1}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("labels = %+v, want %+v", got, want)
	}
}

func TestReviewsTravelInTheExport(t *testing.T) {
	db := mustOpen(t)
	s := newSession(t, db, "reviewed")
	tr, _ := storeTurn(t, db, s.ID, "hello", "hi")
	mustReview(t, db, turn.Review{TurnID: tr.ID, Thumb: -1, Score: 2, Labels: []string{"wrong tool"}, Note: "asked twice"})
	mustReview(t, db, turn.Review{TurnID: tr.ID, Step: "call1", Thumb: 1})

	b := exportJSON(t, db, s.ID)
	var doc export.Document
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Version != 11 || len(doc.Turns[0].Reviews) != 2 {
		t.Fatalf("version %d, reviews %+v", doc.Version, doc.Turns[0].Reviews)
	}
	imported, err := db.Import(ctx, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	turns := sessionTurns(t, db, imported.ID)
	got, err := db.ReviewsFor(ctx, []string{turns[0].ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].TurnID != turns[0].ID || got[0].Thumb != -1 || got[0].Score != 2 || got[0].Note != "asked twice" ||
		!reflect.DeepEqual(got[0].Labels, []string{"wrong tool"}) || got[1].Step != "call1" || got[0].ID == doc.Turns[0].Reviews[0].ID {
		t.Fatalf("imported reviews = %+v", got)
	}
	if n, err := db.ListReviewed(ctx, ReviewFilter{Label: "wrong tool"}); err != nil || len(n) != 2 {
		t.Errorf("label filter after import: %d turns, %v; want the original and the copy", len(n), err)
	}

	// A session never reviewed keeps the version it had.
	plain := newSession(t, db, "plain")
	storeTurn(t, db, plain.ID, "q", "a")
	var pdoc export.Document
	if err := json.Unmarshal(exportJSON(t, db, plain.ID), &pdoc); err != nil {
		t.Fatal(err)
	}
	if pdoc.Version != 3 {
		t.Errorf("an unreviewed session exported as version %d, want 3", pdoc.Version)
	}

	// A damaged review is refused with where it is, and nothing is stored.
	bad := bytes.Replace(b, []byte(`"thumb":-1`), []byte(`"thumb":7`), 1)
	if bytes.Equal(bad, b) {
		t.Fatal("the test's edit did not apply")
	}
	before := countRows(t, db, `SELECT COUNT(*) FROM sessions`)
	_, err = db.Import(ctx, bytes.NewReader(bad))
	if err == nil || !strings.Contains(err.Error(), "reviews[0]") {
		t.Fatalf("damaged review: err = %v", err)
	}
	if after := countRows(t, db, `SELECT COUNT(*) FROM sessions`); after != before {
		t.Errorf("a refused import left %d sessions, want %d", after, before)
	}
}

func TestDeletingASessionDeletesItsReviews(t *testing.T) {
	db := mustOpen(t)
	s := newSession(t, db, "gone")
	tr, _ := storeTurn(t, db, s.ID, "q", "a")
	mustReview(t, db, turn.Review{TurnID: tr.ID, Thumb: -1, Labels: []string{"secret label"}, Note: "a private note"})
	if err := db.DeleteSession(ctx, s.ID); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, db, `SELECT COUNT(*) FROM reviews`) + countRows(t, db, `SELECT COUNT(*) FROM review_labels`); n != 0 {
		t.Fatalf("%d review rows left after deleting the session", n)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if raw := readDBFile(t, db.path); bytes.Contains(raw, []byte("a private note")) || bytes.Contains(raw, []byte("secret label")) {
		t.Error("the deleted review's note or label is still in the file's bytes")
	}
}

func TestMarkdownShowsReviewsAsText(t *testing.T) {
	db := mustOpen(t)
	s := newSession(t, db, "reviewed")
	tr, _ := storeTurn(t, db, s.ID, "hello", "hi")
	mustReview(t, db, turn.Review{TurnID: tr.ID, Thumb: -1, Score: 2, Labels: []string{"wrong tool"}, Note: "used <script>x</script> | twice\nthen stopped"})
	mustReview(t, db, turn.Review{TurnID: tr.ID, Step: "tool1", Thumb: 1})
	var buf bytes.Buffer
	if err := export.Write(ctx, db, s.ID, export.Markdown, &buf, export.Options{}); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{"#### Review", "| the turn | 👎 bad | 2/5 | wrong tool |", "| tool1 | 👍 good | — | — | — |"} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "<script>") || strings.Contains(md, "\nthen stopped") {
		t.Errorf("the note is not escaped onto one line:\n%s", md)
	}
}
