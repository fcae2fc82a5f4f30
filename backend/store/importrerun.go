package store

// Re-runs from a step on import (export.Version 9). A re-run names the
// turn it was re-run from, the step and the kind of edit. The step and
// the edit are stored with the turn; the link to the source once every
// turn of the file is in (the source may come after it in a damaged or
// hand-made file), mapped through the same new ids as every other id. A
// source the file lacks (deleted, or on a branch a fork does not copy)
// leaves the link empty and the step and edit as they were, as deleting
// the original does here (turns.from_turn_id ON DELETE SET NULL). The
// recordings the re-run used come with it as its own (captures), so it
// replays without its source.

// linkReruns stores each re-run's link to its source turn, when the file
// holds that turn.
func (im *importer) linkReruns() error {
	inFile := map[string]bool{}
	for _, t := range im.doc.Turns {
		inFile[t.ID] = true
	}
	for _, t := range im.doc.Turns {
		if t.FromTurnID == "" || !inFile[t.FromTurnID] || t.FromTurnID == t.ID {
			continue
		}
		if _, err := im.tx.ExecContext(im.ctx, `UPDATE turns SET from_turn_id = ? WHERE id = ?`, im.id(t.FromTurnID), im.id(t.ID)); err != nil {
			return err
		}
	}
	return nil
}
