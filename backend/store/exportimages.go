package store

import (
	"encoding/json"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
)

// namedImages finds the images the session's messages name, in the order
// the turns first name them, and counts them. They are found by id, not
// by session: a replay names the images of the turn it replayed, which
// may be in another session, and the file must hold them.
func (r *sessionReader) namedImages() (int, error) {
	rows, err := r.tx.QueryContext(r.ctx, `SELECT m.turn_id, m.extra FROM turns t JOIN messages m ON m.turn_id = t.id
		WHERE t.session_id = ? AND instr(m.extra, '"images"') > 0 ORDER BY t.seq, m.idx`, r.sessionID)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	r.first, r.refs = map[string]string{}, map[string]llm.Image{}
	for rows.Next() {
		var turnID, extra string
		if err := rows.Scan(&turnID, &extra); err != nil {
			return 0, err
		}
		for _, im := range withExtra(llm.Message{}, extra).Images {
			if _, ok := r.first[im.ID]; !ok && im.ID != "" {
				r.first[im.ID], r.refs[im.ID] = turnID, im
				r.images = append(r.images, im.ID)
			}
		}
	}
	return len(r.images), rows.Err()
}

func (r *sessionReader) imageList() string {
	list, _ := json.Marshal(r.images)
	return string(list)
}

// imageData hands on the images namedImages found, with their bytes, one
// at a time. Each is owned by a turn of the session (keepImages): its own,
// else the first that names it. One no longer stored (its turn was
// deleted, or a salvage could not read it) is handed on marked gone, as
// the message names it, so the file says it was gone rather than lacking
// it, which an import refuses as damage (export.Version 5).
func (r *sessionReader) imageData() error {
	rows, err := r.tx.QueryContext(r.ctx, `SELECT j.value, i.id IS NULL, COALESCE(i.turn_id, ''), COALESCE(i.turn_id IN (SELECT id FROM turns WHERE session_id = ?), 0),
			COALESCE(i.mime, ''), COALESCE(i.name, ''), COALESCE(i.width, 0), COALESCE(i.height, 0), COALESCE(i.size, 0), COALESCE(i.sha256, ''), COALESCE(i.created_at, ''), i.data
		FROM json_each(?) j LEFT JOIN images i ON i.id = j.value ORDER BY j.key`, r.sessionID, r.imageList())
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var im export.Image
		var created string
		var ours bool
		if err := rows.Scan(&im.ID, &im.Gone, &im.TurnID, &ours, &im.MIME, &im.Name, &im.Width, &im.Height, &im.Size, &im.SHA256, &created, &im.Data); err != nil {
			return err
		}
		if im.Gone {
			ref := r.refs[im.ID]
			im.MIME, im.Name, im.Width, im.Height, im.Size, im.SHA256 = ref.MIME, ref.Name, ref.Width, ref.Height, ref.Size, ref.SHA256
		} else {
			im.CreatedAt = parseTime(created)
		}
		if !ours {
			im.TurnID = r.first[im.ID]
		}
		if err := sinkErr(r.to.Image(&im)); err != nil {
			return err
		}
	}
	return rows.Err()
}

// keepImages keeps the images doc's turns name, each owned by a turn of
// doc: its own turn when that is in doc, else the first that names it (a
// replay's, when the turn it replayed is in another session or not on a
// forked branch). An image is deleted with its owner, so once imported it
// lives as long as a turn that uses it.
func keepImages(doc *export.Document) {
	in, first := map[string]bool{}, map[string]string{}
	for _, t := range doc.Turns {
		in[t.ID] = true
		for _, m := range t.Messages {
			for _, im := range m.Images {
				if _, ok := first[im.ID]; !ok && im.ID != "" {
					first[im.ID] = t.ID
				}
			}
		}
	}
	kept := doc.Images[:0:0]
	for _, im := range doc.Images {
		if first[im.ID] == "" {
			continue
		}
		if !in[im.TurnID] {
			im.TurnID = first[im.ID]
		}
		kept = append(kept, im)
	}
	doc.Images = kept
}
