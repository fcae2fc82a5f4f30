package store

import (
	"context"
	"io"

	"github.com/agentdeck/agentdeck/backend/export"
)

// The session exports moved to package export, which reads a session
// through DB.ExportDocument. What follows keeps callers of the store's old
// export API building until they call package export themselves.

// ExportFormat is export.Format.
//
// Deprecated: use export.Format.
type ExportFormat = export.Format

// ExportOptions is export.Options.
//
// Deprecated: use export.Options.
type ExportOptions = export.Options

// The export formats.
//
// Deprecated: use export.JSON, export.Markdown and export.JSONL.
const (
	ExportJSON     = export.JSON
	ExportMarkdown = export.Markdown
	ExportJSONL    = export.JSONL
)

// ParseExportFormat is export.ParseFormat.
//
// Deprecated: use export.ParseFormat.
func ParseExportFormat(s string) (ExportFormat, error) { return export.ParseFormat(s) }

// Export writes one session to w: export.Write with db as the source.
//
// Deprecated: use export.Write(ctx, db, sessionID, format, w, opts).
func (db *DB) Export(ctx context.Context, sessionID string, format ExportFormat, w io.Writer, opts ExportOptions) error {
	return export.Write(ctx, db, sessionID, format, w, opts)
}
