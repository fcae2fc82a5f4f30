package app

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/runner"
	"github.com/agentdeck/agentdeck/backend/setup"
	"github.com/agentdeck/agentdeck/backend/store"
)

// apiTable is the API as the UI knows it: every method, and whether it
// needs the database. A method added to API must be added here, to api.ts
// (whose test checks it against the generated list) and regenerated into
// the frontend's types (make types).
var apiTable = map[string]need{
	"ListSessions": needDB, "CreateSession": needDB, "GetSession": needDB, "RenameSession": needDB,
	"UpdateSession": needDB, "DeleteSession": needDB, "SearchSessions": needDB, "ExportSession": needDB,
	"ImportSession": needDB,
	"ImportFile":    needDB,
	"SendMessage":   needDB, "UploadAttachment": needDB, "StopTurn": needDB, "GetTurn": needDB, "ListTurns": needDB, "EventsAfter": needDB,
	"ReplayTurn": needDB, "RerunTurn": needDB, "RerunFrom": needDB, "TurnSteps": needDB, "DiffTurns": needDB, "PendingApprovals": anyTime, "AnswerApproval": anyTime,
	"SessionTree": needDB, "ListBranch": needDB, "GetImage": needDB, "ImageFile": anyTime, "ClipboardImage": anyTime, "SwitchBranch": needDB, "CountTurnsFrom": needDB, "DeleteTurn": needDB, "ForkSession": needDB,
	"SendSideBySide": needDB, "GroupChain": needDB, "StopGroup": needDB, "ContinueWith": needDB, "OpenGroup": needDB, "VoteOnGroup": needDB, "ListVotes": needDB, "ArenaBoard": needDB,
	"SaveReview": needDB, "ReviewsFor": needDB, "ListReviewed": needDB, "ReviewLabels": needDB,
	"ListProviders": needDB, "Presets": anyTime, "SaveProvider": needDB, "DeleteProvider": needDB,
	"TestProvider": anyTime, "DetectLocal": anyTime, "ListWorkflows": anyTime, "ValidateWorkflow": anyTime,
	"GetSettings": needDB, "SaveSettings": needDB, "GetObservability": needDB, "SaveObservability": needDB,
	"Status": anyTime, "Version": anyTime, "About": anyTime, "UIReady": anyTime,
	"ContextMeter": needDB, "Usage": needDB, "UsageCSV": needDB, "ModelFacts": needDB, "BudgetState": needDB,
	"EvalRuns": needDB, "EvalReport": needDB, "EvalAnswer": needDB, "EvalAgreement": needDB, "EvalDiff": needDB, "EvalCaseFromTurn": needDB,
	"EvalSuites": needDB, "SaveEvalCases": needDB, "SuiteFromReviewed": needDB, "CreateExampleSuite": needDB, "StartEval": needDB, "StopEval": needDB,
	"ListProjects": needDB, "GetProject": needDB, "CreateProject": needDB, "UpdateProject": needDB, "DeleteProject": needDB,
	"MoveSession": needDB, "PinSession": needDB, "ArchiveSession": needDB, "SetTags": needDB, "ListTags": needDB,
	"SearchIn": needDB, "SessionSettings": needDB,
	"ListPrompts": needDB, "SavePrompt": needDB, "DeletePrompt": needDB, "ExportPrompts": needDB, "ImportPrompts": needDB,
	"AddDocument": needDB, "ListDocuments": needDB, "GetDocument": needDB, "RemoveDocument": needDB, "SearchKnowledge": needDB,
}

// What Wails binds and the browser mode serves is exactly the table, and
// every method answers (T, error).
func TestAPIIsTheTable(t *testing.T) {
	t.Parallel()
	errType := reflect.TypeFor[error]()
	typ := reflect.TypeFor[*API]()
	var got []string
	for i := range typ.NumMethod() {
		m := typ.Method(i)
		got = append(got, m.Name)
		if ft := m.Type; ft.NumOut() != 2 || ft.Out(1) != errType {
			t.Errorf("%s answers %v; every API method answers (T, error)", m.Name, ft)
		}
	}
	var want []string
	for name := range apiTable {
		want = append(want, name)
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("API methods %v\nwant %v", got, want)
	}
	served := apiMethods(NewService(Config{}).api)
	if len(served) != len(want) {
		t.Fatalf("the browser mode serves %d methods, want %d", len(served), len(want))
	}
}

// Without a database every method that needs it says why it cannot
// answer, with the safe message of the opening error; the others answer.
func TestWithoutADatabaseTheCallsSayWhy(t *testing.T) {
	t.Parallel()
	cause := errors.New("sqlite: file is locked by pid 4242")
	svc := NewService(Config{DBErr: apperr.Wrap(cause, apperr.Unavailable, "The database is in use by another program.")})
	api := reflect.ValueOf(svc.api)
	for name, n := range apiTable {
		if name == "DetectLocal" || name == "TestProvider" {
			continue // they reach for the network
		}
		t.Run(name, func(t *testing.T) {
			fn := api.MethodByName(name)
			args := make([]reflect.Value, fn.Type().NumIn())
			for i := range args {
				args[i] = reflect.Zero(fn.Type().In(i))
			}
			err, _ := fn.Call(args)[1].Interface().(error)
			var ae *apperr.Error
			if err != nil && !errors.As(err, &ae) {
				t.Fatalf("error %T %v is not an *apperr.Error", err, err)
			}
			switch {
			case n == needDB && (ae == nil || ae.Code != apperr.Unavailable || ae.Message != "The database is in use by another program." || ae.Err != nil):
				t.Fatalf("without a database: %#v, want the opening error without its cause", ae)
			case n == anyTime && ae != nil && ae.Message == "The database is in use by another program.":
				t.Fatalf("%s needs no database but refused: %v", name, ae)
			}
		})
	}
}

// failingStore is an AppStore whose session list fails as a bug would: with
// an error that has no code and says too much.
type failingStore struct{ setup.AppStore }

func (failingStore) ListSessions(context.Context, store.Page) (store.SessionPage, error) {
	return store.SessionPage{}, errors.New("pq: relation \"sessions\" does not exist")
}

// An error without a code reaches the UI, in the window and over HTTP, as
// "internal" with a generic message; its cause and the method go to the log.
func TestAnInternalErrorLeavesWithoutItsCause(t *testing.T) {
	t.Parallel()
	var logged bytes.Buffer
	svc := NewService(Config{DB: failingStore{}, Runner: &runner.Runner{}, Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	_, err := svc.api.ListSessions(store.Page{})
	var ae *apperr.Error
	if !errors.As(err, &ae) || ae.Code != apperr.Internal || strings.Contains(ae.Message, "relation") || ae.Err != nil {
		t.Fatalf("ListSessions = %#v", err)
	}
	if log := logged.String(); !strings.Contains(log, "method=ListSessions") || !strings.Contains(log, `relation`) {
		t.Fatalf("the log does not name the method and the cause: %s", log)
	}

	srv, err := NewServer(svc, ServeConfig{Addr: "127.0.0.1:7788", Token: "t"})
	if err != nil {
		t.Fatal(err)
	}
	srv.host = "127.0.0.1:7788" // as Serve sets it
	req := httptest.NewRequest("POST", "http://127.0.0.1:7788/api/call/ListSessions", strings.NewReader(`[{"limit":0,"cursor":""}]`))
	req.Header.Set("Authorization", "Bearer t")
	resp := httptest.NewRecorder()
	srv.Handler().ServeHTTP(resp, req)
	var body map[string]string
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.Code != 500 || body["code"] != "internal" || strings.Contains(body["message"], "relation") {
		t.Fatalf("HTTP %d %v: %v", resp.Code, body, err)
	}
}
