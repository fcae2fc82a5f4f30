package data

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// maxColumns is SQLite's default limit on the columns of a table.
const maxColumns = 2000

// maxNameRunes caps table and column names; longer ones are cut.
const maxNameRunes = 60

// Attach imports the file at filePath and describes the table it made: for
// a workbook, the first of its tables (AttachAll describes them all). The
// rules are in the package doc; an error leaves the database as it was.
func (d *DB) Attach(ctx context.Context, filePath string) (Table, error) {
	tables, err := d.AttachAll(ctx, filePath)
	if err != nil {
		return Table{}, err
	}
	return tables[0], nil
}

// AttachAll imports the file at filePath as new tables, one for a text file
// and one per sheet with data for a workbook, and describes them in order.
// Either every table is made or, on an error, none.
func (d *DB) AttachAll(ctx context.Context, filePath string) ([]Table, error) {
	im, err := openImport(filePath, d.Limits().MaxFileBytes)
	if err != nil {
		return nil, err
	}
	defer im.f.Close()
	if im.kind.format == formatWorkbook {
		return d.attachWorkbook(ctx, im)
	}
	t, err := im.survey(ctx)
	if err != nil {
		return nil, err
	}
	return d.load(ctx, []pending{{table: t, open: func() (rowReader, error) { return im.open(im.keys) }}})
}

// importer reads one file, once per pass.
type importer struct {
	name, path string
	f          *os.File
	size       int64
	kind       kind
	keys       []string // the raw column names, after the first pass
}

// openImport opens the file and runs the checks that need only its size
// and its first bytes.
func openImport(filePath string, maxBytes int64) (*importer, error) {
	name := filepath.Base(filePath)
	f, err := os.Open(filePath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, apperr.Wrap(err, apperr.NotFound, "Cannot attach %s: the file does not exist (any more).", name)
		}
		return nil, apperr.Wrap(err, apperr.Unavailable, "Cannot attach %s: the file cannot be opened. Check that it is readable.", name)
	}
	im := &importer{name: name, path: filePath, f: f}
	if err := im.check(maxBytes); err != nil {
		f.Close()
		return nil, err
	}
	return im, nil
}

func (im *importer) check(maxBytes int64) error {
	st, err := im.f.Stat()
	if err != nil {
		return readError(im.name, err)
	}
	if !st.Mode().IsRegular() {
		return badFile(im.name, "it is not a regular file. %s", attachText)
	}
	if st.Size() > maxBytes {
		return badFile(im.name, "the file is %s; the limit is %s. Filter it, keep only the columns you need or split it into smaller files, and attach those.",
			sizeText(st.Size()), sizeText(maxBytes))
	}
	im.size = st.Size()
	head := make([]byte, headSize)
	n, err := io.ReadFull(im.f, head)
	atEOF := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
	if err != nil && !atEOF {
		return readError(im.name, err)
	}
	if bytes.HasPrefix(head[:n], []byte(oleMagic)) && oleKind(im.f, im.size) == oleEncrypted {
		return badFile(im.name, "the workbook is encrypted with a password, so it cannot be read. "+
			"Open it in Excel, remove the password (File, Info, Protect Workbook, Encrypt with Password: clear it), save it and attach it again.")
	}
	im.kind, err = inspect(im.name, head[:n], atEOF)
	return err
}

// survey is the first pass: it checks every row, infers the column types
// and describes the table to create (its name not yet deduplicated).
func (im *importer) survey(ctx context.Context) (Table, error) {
	rr, err := im.open(nil)
	if err != nil {
		return Table{}, err
	}
	var inf []inferrer
	n, err := eachRow(ctx, rr, im.name, func(_ int64, row []string) error {
		for len(inf) < len(row) {
			inf = append(inf, inferrer{})
		}
		for i, v := range row {
			inf[i].add(v)
		}
		return nil
	})
	if err != nil {
		return Table{}, err
	}
	if ctx.Err() != nil {
		return Table{}, cancelled(ctx, im.name)
	}
	im.keys = rr.columns()
	switch {
	case len(im.keys) == 0:
		return Table{}, badFile(im.name, "there are no rows with any fields in it. %s", attachText)
	case len(im.keys) > maxColumns:
		return Table{}, badFile(im.name, "it has %s columns; a table can have at most %s. Keep only the columns you need and attach that.",
			commas(int64(len(im.keys))), commas(maxColumns))
	}
	names := columnNames(im.keys)
	cols := make([]Column, len(names))
	for i := range cols {
		typ := TypeText
		if i < len(inf) {
			typ = inf[i].typ()
		}
		cols[i] = Column{Name: names[i], Type: typ}
	}
	return Table{Name: tableBase(im.name), Source: im.name, Columns: cols, Rows: n}, nil
}

// open starts reading the rows from the top. keys, for JSON, are the keys
// the first pass found, in order.
func (im *importer) open(keys []string) (rowReader, error) {
	if _, err := im.f.Seek(int64(im.kind.skip), io.SeekStart); err != nil {
		return nil, readError(im.name, err)
	}
	// Read what Stat saw and no more, so both passes see the same bytes.
	r := bufio.NewReaderSize(newUTF8Reader(io.LimitReader(im.f, im.size-int64(im.kind.skip))), 64<<10)
	if im.kind.format == formatCSV {
		return newCSVRows(im.name, r, im.kind)
	}
	ext := strings.ToLower(filepath.Ext(im.name))
	single := ext != ".jsonl" && ext != ".ndjson"
	return newJSONRows(im.name, r, im.kind, single, keys, im), nil
}

// lineAt returns the line of the byte before offset (counted after the
// byte order mark) or, forward, of the first non-blank byte at or after
// it. It rereads the file: it is only used for error messages.
func (im *importer) lineAt(offset int64, forward bool) int {
	f, err := os.Open(im.path)
	if err != nil {
		return 0
	}
	defer f.Close()
	br := bufio.NewReader(f)
	br.Discard(im.kind.skip)
	line := 1
	for i := int64(0); ; i++ {
		b, err := br.ReadByte()
		if err != nil || (i >= offset && (!forward || !isBlank(b))) {
			return line
		}
		if b == '\n' {
			line++
		}
	}
}

// errorLine returns the line of a JSON syntax error in the value that
// starts at offset. The decoder's own offset leaves out the bytes Token
// consumed, so the value is scanned again on its own (at most 1 MiB of it).
func (im *importer) errorLine(offset int64) int {
	f, err := os.Open(im.path)
	if err != nil {
		return 0
	}
	defer f.Close()
	if _, err := f.Seek(int64(im.kind.skip)+offset, io.SeekStart); err != nil {
		return 0
	}
	rest, _ := io.ReadAll(io.LimitReader(f, 1<<20))
	var v json.RawMessage
	var se *json.SyntaxError
	if err := json.Unmarshal(rest, &v); errors.As(err, &se) && !strings.Contains(se.Error(), "after top-level value") &&
		!strings.Contains(se.Error(), "unexpected end") {
		return im.lineAt(offset+se.Offset, false)
	}
	return im.lineAt(offset, true)
}

func isBlank(b byte) bool { return b == ' ' || b == '\t' || b == '\n' || b == '\r' }

// pending is a surveyed table waiting for its second pass: open starts
// reading its rows again from the top.
type pending struct {
	table Table
	open  func() (rowReader, error)
}

// load is the second pass: in one transaction it creates each table (named
// t.Name, or t.Name_2, ... if taken), inserts its rows and records it.
func (d *DB) load(ctx context.Context, ps []pending) ([]Table, error) {
	source := ps[0].table.Source
	tx, err := d.writer.BeginTx(ctx, nil)
	if err != nil {
		return nil, loadError(ctx, source, err)
	}
	defer tx.Rollback() // after Commit, a no-op
	out := make([]Table, 0, len(ps))
	for _, p := range ps {
		rr, err := p.open()
		if err != nil {
			return nil, err
		}
		t, err := d.loadTable(ctx, tx, p.table, rr)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	if err := tx.Commit(); err != nil {
		return nil, loadError(ctx, source, err)
	}
	return out, nil
}

// loadTable creates the table t in tx, fills it from rr and records it.
func (d *DB) loadTable(ctx context.Context, tx *sql.Tx, t Table, rr rowReader) (Table, error) {
	// Statements run without ctx's Done channel: with it the driver starts a
	// goroutine per statement. ctx is checked every few thousand rows, and
	// BeginTx already rolls back when it ends.
	bg := context.WithoutCancel(ctx)
	var err error
	if t.Name, err = uniqueTableName(bg, tx, t.Name); err != nil {
		return Table{}, loadError(ctx, t.Source, err)
	}
	defs := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		defs[i] = quoteIdent(c.Name) + " " + sqlType(c.Type)
	}
	if _, err := tx.ExecContext(bg, "CREATE TABLE "+quoteIdent(t.Name)+" ("+strings.Join(defs, ", ")+")"); err != nil {
		return Table{}, loadError(ctx, t.Source, err)
	}
	if err := d.insertRows(ctx, tx, t, rr); err != nil {
		return Table{}, err
	}
	cols, _ := json.Marshal(t.Columns)
	if _, err := tx.ExecContext(bg, `INSERT INTO `+metaTable+` (name, source, columns, rows, attached_at) VALUES (?, ?, ?, ?, ?)`,
		t.Name, t.Source, string(cols), t.Rows, time.Now().UTC().Format(time.RFC3339)); err != nil {
		return Table{}, loadError(ctx, t.Source, err)
	}
	return t, nil
}

// insertRows inserts every row of rr into the table t, converting each
// cell to its column's type.
func (d *DB) insertRows(ctx context.Context, tx *sql.Tx, t Table, rr rowReader) error {
	bg := context.WithoutCancel(ctx)
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(t.Columns)), ", ")
	ins, err := tx.PrepareContext(bg, "INSERT INTO "+quoteIdent(t.Name)+" VALUES ("+marks+")")
	if err != nil {
		return loadError(ctx, t.Source, err)
	}
	defer ins.Close()
	args := make([]any, len(t.Columns))
	n, err := eachRow(ctx, rr, t.Source, func(n int64, row []string) error {
		if d.importHook != nil {
			if err := d.importHook(n); err != nil {
				return err
			}
		}
		for i, c := range t.Columns {
			v := ""
			if i < len(row) {
				v = row[i]
			}
			args[i] = convert(v, c.Type)
		}
		if _, err := ins.ExecContext(bg, args...); err != nil {
			return loadError(ctx, t.Source, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	if n != t.Rows {
		return badFile(t.Source, "the file changed while it was being read. Attach it again.")
	}
	return nil
}

// uniqueTableName returns base, or base_2, base_3, ... whichever no schema
// object is named yet (SQLite names are case-insensitive).
func uniqueTableName(ctx context.Context, tx *sql.Tx, base string) (string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT lower(name) FROM sqlite_schema`)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	taken := map[string]bool{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return "", err
		}
		taken[s] = true
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	return dedupe(base, taken), nil
}

// dedupe returns name, or name_2, name_3, ... whichever is not in taken
// (lowercase keys), and marks it taken.
func dedupe(name string, taken map[string]bool) string {
	out := name
	for i := 2; taken[strings.ToLower(out)]; i++ {
		out = name + "_" + strconv.Itoa(i)
	}
	taken[strings.ToLower(out)] = true
	return out
}

// tableBase is the table name for a file, before deduplication.
func tableBase(file string) string {
	return tableName(strings.TrimSuffix(file, filepath.Ext(file)))
}

// tableName makes raw (a file name without its extension, or that and a
// sheet's name) a table name, before deduplication.
func tableName(raw string) string {
	name := sanitize(raw)
	switch {
	case name == "":
		return "data"
	case startsWithDigit(name), strings.HasPrefix(name, "sqlite_"):
		return "t_" + name
	}
	return name
}

// columnNames turns a header into unique column names.
func columnNames(raw []string) []string {
	taken := map[string]bool{}
	out := make([]string, len(raw))
	for i, h := range raw {
		name := sanitize(h)
		switch {
		case name == "":
			name = "col_" + strconv.Itoa(i+1)
		case startsWithDigit(name):
			name = "col_" + name
		}
		out[i] = dedupe(name, taken)
	}
	return out
}

// sanitize lowercases s and keeps letters and digits, turning every other
// run of characters into one '_', trimmed at both ends.
func sanitize(s string) string {
	var b strings.Builder
	gap := false
	runes := 0
	for _, r := range strings.ToLower(s) {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			gap = true
			continue
		}
		if runes >= maxNameRunes {
			break
		}
		if gap && b.Len() > 0 {
			b.WriteByte('_')
			runes++
		}
		gap = false
		b.WriteRune(r)
		runes++
	}
	return b.String()
}

func startsWithDigit(s string) bool { return s != "" && s[0] >= '0' && s[0] <= '9' }

// sqlType is the declared type of a column. DATE is declared TEXT: the
// driver returns time.Time for a column declared DATE, and the model should
// see the ISO text that was attached.
func sqlType(typ string) string {
	if typ == TypeDate {
		return TypeText
	}
	return typ
}

// quoteIdent quotes an SQL identifier.
func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func cancelled(ctx context.Context, file string) error {
	return apperr.Wrap(ctx.Err(), apperr.Cancelled, "Attaching %s was stopped; nothing was loaded.", file)
}

func loadError(ctx context.Context, file string, err error) error {
	if ctx.Err() != nil {
		return cancelled(ctx, file)
	}
	return apperr.Wrap(err, apperr.Unavailable, "Cannot attach %s: saving it in the session's database failed (is the disk full?); nothing was loaded.", file)
}

// sizeText formats a byte count for people: 1.5 MB, 12 KB, 300 bytes.
func sizeText(n int64) string {
	switch {
	case n >= 1<<20:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<20)), ".0") + " MB"
	case n >= 1<<10:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/(1<<10)), ".0") + " KB"
	}
	return fmt.Sprintf("%d bytes", n)
}
