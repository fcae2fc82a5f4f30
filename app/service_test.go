package app

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/buildinfo"
	"github.com/agentdeck/agentdeck/backend/store"
)

func TestStatusReportsTheSchema(t *testing.T) {
	t.Parallel()
	db, err := store.Open(context.Background(), filepath.Join(t.TempDir(), "a.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	svc := NewService(Config{Info: buildinfo.Info{Version: "2.0"}, DB: db, DBPath: db.Path()})
	st, err := svc.api.Status()
	if err != nil || st.Version != "2.0" || st.SchemaVersion < 1 || st.DBError != nil {
		t.Fatalf("status = %+v", st)
	}
}

func TestStatusCarriesASafeDBError(t *testing.T) {
	t.Parallel()
	cause := errors.New("sqlite: internal detail")
	svc := NewService(Config{DBErr: apperr.Wrap(cause, apperr.Unavailable, "cannot open the database")})
	st, err := svc.api.Status()
	if err != nil || st.DBError == nil || st.DBError.Message != "cannot open the database" || st.DBError.Code != apperr.Unavailable {
		t.Fatalf("status = %+v", st.DBError)
	}
	b, _ := json.Marshal(st)
	if strings.Contains(string(b), "internal detail") {
		t.Fatalf("the cause leaked into the reply: %s", b)
	}
}

func TestUIReadyWritesTheReadyFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "ready.json")
	svc := NewService(Config{ReadyFile: path})
	if _, err := svc.api.UIReady(ReadyReport{VersionShown: "v1", Regions: []string{"sidebar"}}); err != nil {
		t.Fatal(err)
	}
	var got ReadyReport
	b, _ := os.ReadFile(path)
	if err := json.Unmarshal(b, &got); err != nil || got.VersionShown != "v1" {
		t.Fatalf("ready file %s: %v", b, err)
	}
}

func TestErrorReplyHidesInternals(t *testing.T) {
	t.Parallel()
	reply := ErrorReply(errors.New("pq: relation does not exist")).(*apperr.Error)
	if reply.Code != apperr.Internal || strings.Contains(reply.Message, "relation") {
		t.Fatalf("reply = %+v", reply)
	}
}
