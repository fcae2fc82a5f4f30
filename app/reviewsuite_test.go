package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/eval"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/store"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// TestSuiteFromReviewed: the turns a review filter picks become a new
// suite file in the evaluations folder, or cases added to one there (a
// turn it has a case of already is skipped); what cannot be done says
// why.
func TestSuiteFromReviewed(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	svc, db, _, dir, _ := evalService(t)
	api := svc.api
	sess, _ := db.CreateSession(ctx, store.Session{Title: "chat", Provider: "fake", Model: "m"})
	var ids []string
	for _, m := range []string{"Capital of France?", "Capital of Spain?"} {
		tr, err := db.StartTurn(ctx, store.Turn{SessionID: sess.ID, UserMessage: m, Workflow: "chat", Model: "m"})
		if err != nil {
			t.Fatal(err)
		}
		if err := db.FinishTurn(ctx, tr.ID, 0, turn.Result{OK: true, Outcome: turn.OutcomeSucceeded, FinalText: "Lyon.",
			Messages: []llm.Message{{Role: llm.RoleUser, Content: m}, {Role: llm.RoleAssistant, Content: "Lyon."}}, Termination: turn.Termination{Kind: turn.TermNaturalCompletion}}); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, tr.ID)
	}
	if _, err := db.SaveReview(ctx, turn.Review{TurnID: ids[0], Thumb: -1, Labels: []string{"wrong city"}, Note: "Paris, not Lyon."}); err != nil {
		t.Fatal(err)
	}
	down := store.ReviewFilter{Rated: store.RatedDown}

	made, err := api.SuiteFromReviewed(ReviewSuiteMake{Filter: down, Name: "Rated down"})
	if err != nil || made.Added != 1 || made.Suite.File != "rated-down.yaml" || made.Suite.Cases != 1 || made.Suite.Name != "Rated down" {
		t.Fatalf("a new suite: %+v %v", made, err)
	}
	s, err := eval.Load(filepath.Join(dir, "rated-down.yaml"))
	if err != nil || s.Cases[0].From == nil || s.Cases[0].From.Turn != ids[0] || s.Cases[0].Assert[0].Judge == nil {
		t.Fatalf("the suite saved: %+v %v", s, err)
	}

	writeSuite(t, dir, "geo.yaml", geoSuite)
	writeSuite(t, dir, "notes.yaml", "just: notes\n")
	if _, err := db.SaveReview(ctx, turn.Review{TurnID: ids[1], Thumb: -1, Note: "Madrid."}); err != nil {
		t.Fatal(err)
	}
	made, err = api.SuiteFromReviewed(ReviewSuiteMake{Filter: down, File: "rated-down.yaml"})
	if err != nil || made.Added != 1 || made.Skipped != 1 || made.Suite.Cases != 2 {
		t.Fatalf("added to the suite made: %+v %v", made, err)
	}
	made, err = api.SuiteFromReviewed(ReviewSuiteMake{Filter: down, File: "geo.yaml"})
	if err != nil || made.Added != 2 || made.Suite.Cases != 4 || made.Suite.Name != "geo" {
		t.Fatalf("added to geo: %+v %v", made, err)
	}
	text, _ := os.ReadFile(filepath.Join(dir, "geo.yaml"))
	if !strings.HasPrefix(string(text), "# Kept by hand.\n") {
		t.Fatalf("geo.yaml lost what was written by hand:\n%s", text)
	}

	tests := []struct {
		name string
		req  ReviewSuiteMake
		code apperr.Code
		want string
	}{
		{"no name, no file", ReviewSuiteMake{Filter: down}, apperr.Invalid, "Name the new suite"},
		{"the new suite's file exists", ReviewSuiteMake{Filter: down, Name: "geo"}, apperr.Conflict, "already exists"},
		{"no such file", ReviewSuiteMake{Filter: down, File: "nope.yaml"}, apperr.NotFound, "no suite file nope.yaml"},
		{"not a suite", ReviewSuiteMake{Filter: down, File: "notes.yaml"}, apperr.Invalid, "not a suite that reads"},
		{"outside the folder", ReviewSuiteMake{Filter: down, File: "../x.yaml"}, apperr.Invalid, "not a suite file's name"},
		{"every turn there already", ReviewSuiteMake{Filter: down, File: "rated-down.yaml"}, apperr.Conflict, "nothing to add"},
		{"no turns match", ReviewSuiteMake{Filter: store.ReviewFilter{Rated: store.RatedUp}, Name: "kept"}, apperr.NotFound, "No turns match"},
		{"a bad filter", ReviewSuiteMake{Filter: store.ReviewFilter{Rated: "sideways"}, Name: "kept"}, apperr.Invalid, "not a rating"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := api.SuiteFromReviewed(tt.req)
			if apperr.CodeOf(err) != tt.code || err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v (%s), want %s saying %q", err, apperr.CodeOf(err), tt.code, tt.want)
			}
		})
	}
}
