package store

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentdeck/agentdeck/backend/turn"
)

func TestListSessionsByReviews(t *testing.T) {
	db := mustOpen(t)
	downS := newSession(t, db, "rated down")
	upS := newSession(t, db, "rated up")
	stepS := newSession(t, db, "a bad step")
	plainS := newSession(t, db, "nobody looked")
	down, _ := storeTurn(t, db, downS.ID, "q1", "a bad answer")
	up, _ := storeTurn(t, db, upS.ID, "q2", "a good answer")
	step, _ := storeTurn(t, db, stepS.ID, "q3", "an answer with a bad tool call")
	storeTurn(t, db, plainS.ID, "q4", "unread")
	mustReview(t, db, turn.Review{TurnID: down.ID, Thumb: -1, Score: 2, Labels: []string{"wrong tool"}})
	mustReview(t, db, turn.Review{TurnID: up.ID, Thumb: 1, Labels: []string{"helpful"}})
	mustReview(t, db, turn.Review{TurnID: step.ID, Step: "tool1", Thumb: -1, Note: "the calculator for a date"})
	future := time.Now().Add(time.Hour)
	past := time.Now().Add(-7 * 24 * time.Hour)

	tests := []struct {
		name string
		r    *SessionReviews
		want []string
	}{
		{"no filter", nil, []string{downS.ID, upS.ID, stepS.ID, plainS.ID}},
		{"empty filter", &SessionReviews{}, []string{downS.ID, upS.ID, stepS.ID, plainS.ID}},
		{"rated down, a step counts", &SessionReviews{Rated: RatedDown}, []string{downS.ID, stepS.ID}},
		{"rated up", &SessionReviews{Rated: RatedUp}, []string{upS.ID}},
		{"reviewed", &SessionReviews{Rated: RatedReviewed}, []string{downS.ID, upS.ID, stepS.ID}},
		{"not reviewed", &SessionReviews{Rated: RatedUnreviewed}, []string{plainS.ID}},
		{"a label, any case", &SessionReviews{Label: " Wrong  TOOL"}, []string{downS.ID}},
		{"rated up with a label it lacks", &SessionReviews{Rated: RatedUp, Label: "wrong tool"}, nil},
		{"rated down in the last week", &SessionReviews{Rated: RatedDown, Since: &past}, []string{downS.ID, stepS.ID}},
		{"rated down from the future", &SessionReviews{Rated: RatedDown, Since: &future}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			page, err := db.ListSessions(ctx, Page{Reviews: tt.r})
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, s := range page.Sessions {
				ids = append(ids, s.ID)
			}
			slices.Sort(ids)
			want := slices.Clone(tt.want)
			slices.Sort(want)
			if !reflect.DeepEqual(ids, want) {
				t.Fatalf("sessions = %v, want %v", ids, want)
			}
		})
	}

	// The filter joins the others: a tag, and pinned sessions too.
	if err := db.SetTags(ctx, stepS.ID, []string{"tools"}); err != nil {
		t.Fatal(err)
	}
	page, err := db.ListSessions(ctx, Page{Tag: "tools", Reviews: &SessionReviews{Rated: RatedDown}})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Sessions) != 1 || page.Sessions[0].ID != stepS.ID {
		t.Fatalf("tag and rated down = %+v", page.Sessions)
	}
	if _, err := db.ListSessions(ctx, Page{Reviews: &SessionReviews{Rated: "meh"}}); err == nil || !strings.Contains(err.Error(), "not a rating") {
		t.Errorf("a bad rating gave %v", err)
	}
}
