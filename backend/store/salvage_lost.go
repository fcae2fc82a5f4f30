package store

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// What a salvage makes for rows whose parent was lost (see Salvage): a
// placeholder session, and turns made again from their messages.

// bufferedOrphan keeps a message whose turn's row was lost, for
// recoverTurns; it is counted when that turn is made.
func (s *salvager) bufferedOrphan(vals []any, idx func(string) int) bool {
	if idx("turn_id") < 0 || idx("session_id") < 0 {
		return false
	}
	tr := str(vals[idx("turn_id")])
	s.orphanMsgs[tr] = append(s.orphanMsgs[tr], slices.Clone(vals))
	return true
}

// ensureSession makes a placeholder for a session whose row was lost.
func (s *salvager) ensureSession(ctx context.Context, id, at string) error {
	if s.sessions[id] {
		return nil
	}
	if at == "" {
		at = fmtTime(time.Now())
	}
	ok, err := s.w.insert(ctx, `INSERT INTO sessions (id, title, created_at, updated_at, workflow, settings) VALUES (?, 'Recovered session', ?, ?, 'chat', '{}')`,
		[]any{id, at, at})
	if err != nil {
		return err
	}
	if ok {
		s.sessions[id] = true
		s.rep.PlaceholderSessions++
	}
	return nil
}

// recoverTurns makes again the turns whose row was lost but whose
// messages were read, then copies those messages.
func (s *salvager) recoverTurns(ctx context.Context, insert string, cols []string, idx func(string) int, st *SalvageTable) error {
	ids := make([]string, 0, len(s.orphanMsgs))
	for id := range s.orphanMsgs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		msgs := s.orphanMsgs[id]
		sort.SliceStable(msgs, func(i, j int) bool { return num(msgs[i][idx("idx")]) < num(msgs[j][idx("idx")]) })
		session := str(msgs[0][idx("session_id")])
		var user, answer string
		for _, m := range msgs {
			switch llm.Role(str(m[idx("role")])) {
			case llm.RoleUser:
				if user == "" {
					user = str(m[idx("content")])
				}
			case llm.RoleAssistant:
				if c := str(m[idx("content")]); strings.TrimSpace(c) != "" {
					answer = c
				}
			}
		}
		at := idTime(id)
		if err := s.ensureSession(ctx, session, fmtTime(at)); err != nil {
			return err
		}
		seq := s.seqFor(session, id)
		res := turn.Result{FinalText: answer, Outcome: turn.OutcomeFailed,
			Error: "This turn's record was lost to damage in the database; db salvage made it again from its messages."}
		result, _ := json.Marshal(turn.TurnCompletedData{Result: res})
		ok, err := s.w.insert(ctx, `INSERT INTO turns (id, session_id, seq, user_message, state, started_at, completed_at, final_text, outcome, result)
			VALUES (?, ?, ?, ?, 'failed', ?, ?, ?, 'failed', ?)`, []any{id, session, seq, user, fmtTime(at), fmtTime(at), answer, string(result)})
		if err != nil {
			return err
		}
		if !ok {
			st.Dropped += int64(len(msgs))
			continue
		}
		s.turns[id] = turnKey{session: session, seq: seq}
		s.rep.RecoveredTurns++
		for _, m := range msgs {
			ok, err := s.w.insert(ctx, insert, m)
			if err != nil {
				return err
			}
			if ok {
				st.Copied++
			} else {
				st.Dropped++
			}
		}
	}
	return nil
}

// seqFor numbers a remade turn: turn ids grow with time, so the gap in
// the session's numbers between the copied turns before and after it is
// where it was; without one, it goes last.
func (s *salvager) seqFor(session, id string) int64 {
	var before, after int64 = 0, math.MaxInt64
	used := map[int64]bool{}
	var top int64
	for tid, k := range s.turns {
		if k.session != session {
			continue
		}
		used[k.seq] = true
		top = max(top, k.seq)
		switch {
		case tid < id && k.seq > before:
			before = k.seq
		case tid > id && k.seq < after:
			after = k.seq
		}
	}
	for seq := before + 1; seq < after && seq <= top; seq++ {
		if !used[seq] {
			return seq
		}
	}
	return top + 1
}

// turnIDs lists the copied turns, sorted: where a walk of a table keyed
// by turn can go on after an unreadable page (rows of other turns could
// not be kept anyway).
func (s *salvager) turnIDs() []string {
	ids := make([]string, 0, len(s.turns))
	for id := range s.turns {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// idTime is when an id made by turn.NewID (a UUIDv7) was made: its first
// 48 bits are milliseconds since 1970. Other ids give the present.
func idTime(id string) time.Time {
	h := strings.ReplaceAll(id, "-", "")
	if len(h) != 32 || h[12] != '7' {
		return time.Now().UTC()
	}
	b, err := hex.DecodeString(h[:12])
	if err != nil {
		return time.Now().UTC()
	}
	var ms int64
	for _, c := range b {
		ms = ms<<8 | int64(c)
	}
	return time.UnixMilli(ms).UTC()
}
