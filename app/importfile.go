package app

import (
	"context"
	"strings"

	"github.com/agentdeck/agentdeck/backend/export/foreign"
	"github.com/agentdeck/agentdeck/backend/store"
)

// ImportReport is what ImportFile made of a file: the sessions it stored,
// in the file's order, and what it took and left out of each.
type ImportReport struct {
	Sessions []store.Session    `json:"sessions"`
	Report   foreign.FileReport `json:"report"`
}

// ImportFile imports a file the person picked, by its content: our own
// export (one session, as ImportSession), or another app's history
// (ChatGPT, Open WebUI, LM Studio, OpenAI messages), each conversation a
// session, all of them or none. name is the file's name, for messages.
func (a *API) ImportFile(name, content string) (ImportReport, error) {
	return call(a, needDB, func(ctx context.Context) (ImportReport, error) { return a.s.importFile(ctx, name, content) })
}

func (s *Service) importFile(ctx context.Context, name, content string) (ImportReport, error) {
	res, err := foreign.Read(ctx, name, []byte(content))
	if err != nil {
		return ImportReport{}, err
	}
	if res.App == foreign.Ours {
		sess, err := s.db.Import(ctx, strings.NewReader(content))
		if err != nil {
			return ImportReport{}, err
		}
		return ImportReport{Sessions: []store.Session{sess}, Report: foreign.FileReport{App: foreign.Ours,
			Conversations: []foreign.ConversationReport{{Title: sess.Title, SessionID: sess.ID, Turns: sess.Turns, LeftOut: []string{}}}}}, nil
	}
	sessions, err := s.db.ImportDocuments(ctx, res.Documents)
	if err != nil {
		return ImportReport{}, err
	}
	for i, sess := range sessions {
		res.Report.Conversations[i].SessionID = sess.ID
	}
	return ImportReport{Sessions: sessions, Report: res.Report}, nil
}
