package app

import (
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// The turn tree through the API, as the window uses it: send two messages,
// edit the second (a message whose parent is the first turn), see both
// versions in SessionTree, switch back to the first version and on to the
// edit, fork from the edit, and delete the edit with what follows it after
// counting it. The model is only ever sent the branch a turn follows.
func TestTheTurnTreeThroughTheAPI(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.srv.Respond(func(r llmtest.Request) llmtest.Reply {
		return llmtest.Reply{Chunks: llmtest.Text("re: "+r.Messages[len(r.Messages)-1].Content, 2)}
	})
	s := f.session(t, "tree")
	send := func(msg, parent string) string {
		ref, err := f.api.SendMessage(SendRequest{SessionID: s.ID, Message: msg, Parent: parent})
		if err != nil {
			t.Fatal(err)
		}
		f.waitTurn(t, ref.TurnID)
		return ref.TurnID
	}
	one := send("one", "")
	two := send("two", "")
	edit := send("two, edited", one)
	if got := f.srv.Requests()[2].Messages; len(got) < 3 || got[len(got)-3].Content != "one" || got[len(got)-1].Content != "two, edited" || strings.Contains(got[len(got)-2].Content, "two") {
		t.Fatalf("the edit was sent %+v", got)
	}

	tree, err := f.api.SessionTree(s.ID)
	if err != nil || len(tree.Turns) != 3 || strings.Join(tree.ActivePath, ",") != one+","+edit {
		t.Fatalf("tree %+v %v", tree, err)
	}
	if ref, err := f.api.SwitchBranch(two); err != nil || ref.TurnID != two {
		t.Fatalf("switching to the first version: %+v %v", ref, err)
	}
	if got, _ := f.api.GetSession(s.ID); got.ActiveTurnID != two {
		t.Fatalf("active %q after the switch, want the first version", got.ActiveTurnID)
	}
	if _, err := f.api.SwitchBranch(edit); err != nil {
		t.Fatal(err)
	}

	fork, err := f.api.ForkSession(edit)
	if err != nil || fork.ForkedFromTurn != edit || fork.Turns != 2 {
		t.Fatalf("fork %+v %v", fork, err)
	}

	if n, err := f.api.CountTurnsFrom(edit); err != nil || n != 1 {
		t.Fatalf("count %d %v", n, err)
	}
	if n, err := f.api.DeleteTurn(edit); err != nil || n != 1 {
		t.Fatalf("delete %d %v", n, err)
	}
	if got, _ := f.api.GetSession(s.ID); got.ActiveTurnID != two || got.Turns != 2 {
		t.Fatalf("after deleting the active version: active %q, %d turns; want the other version", got.ActiveTurnID, got.Turns)
	}
	if _, err := f.api.GetSession(fork.ID); err != nil {
		t.Fatalf("the fork went with the version it came from: %v", err)
	}
}
