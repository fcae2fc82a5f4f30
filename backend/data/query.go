package data

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// QueryResult is the result of a query, at most Limits.MaxRows rows.
type QueryResult struct {
	Columns []string `json:"columns"`
	// Rows hold int64, float64, string, bool (BOOLEAN columns), []byte
	// (blobs that are not UTF-8) and nil. Non-finite floats are the strings
	// "NaN", "Infinity" and "-Infinity".
	Rows      [][]any `json:"rows"`
	Truncated bool    `json:"truncated"` // there were more rows than Rows
	TotalRows int     `json:"total_rows"`
}

const (
	// countCap bounds the rows stepped through to count a truncated result.
	countCap = 100_000
	// maxValueBytes caps one string or blob on the query pool, so a query
	// like SELECT zeroblob(1e9) fails instead of taking a gigabyte.
	maxValueBytes = 32 << 20
	// cellRunes is how much of a value Table shows.
	cellRunes = 60
)

// Query runs one read-only statement under the DB's limits.
func (d *DB) Query(ctx context.Context, query string) (QueryResult, error) {
	res, _, err := d.query(ctx, query, d.Limits(), 0)
	return res, err
}

// query runs q under lim. With keep > 0 it also returns up to keep rows,
// for a dataset, which may be more than the result shows.
func (d *DB) query(ctx context.Context, q string, lim Limits, keep int) (QueryResult, [][]any, error) {
	stmt, err := checkReadOnly(q)
	if err != nil {
		return QueryResult{}, nil, err
	}
	qctx, cancel := context.WithTimeout(ctx, lim.QueryTimeout)
	defer cancel()
	conn, err := d.reader.Conn(qctx)
	if err != nil {
		return QueryResult{}, nil, queryError(ctx, qctx, lim, err)
	}
	defer conn.Close()
	if _, err := sqlite.Limit(conn, sqlite3.SQLITE_LIMIT_LENGTH, maxValueBytes); err != nil {
		return QueryResult{}, nil, apperr.Wrap(err, apperr.Internal, "cannot prepare the query connection")
	}
	rows, err := conn.QueryContext(qctx, stmt)
	if err != nil {
		return QueryResult{}, nil, queryError(ctx, qctx, lim, err)
	}
	defer rows.Close()

	res := QueryResult{TotalRows: -1}
	if res.Columns, err = rows.Columns(); err != nil {
		return QueryResult{}, nil, queryError(ctx, qctx, lim, err)
	}
	isBool := make([]bool, len(res.Columns))
	if types, err := rows.ColumnTypes(); err == nil {
		for i, t := range types {
			isBool[i] = t.DatabaseTypeName() == TypeBoolean
		}
	}
	want := max(lim.MaxRows, keep)
	all, seen, err := collect(rows, isBool, want, d.countCap)
	if err != nil {
		return QueryResult{}, nil, queryError(ctx, qctx, lim, err)
	}
	err = rows.Err()
	switch {
	case ctx.Err() != nil:
		return QueryResult{}, nil, queryError(ctx, qctx, lim, ctx.Err())
	case err != nil && seen <= want:
		return QueryResult{}, nil, queryError(ctx, qctx, lim, err)
	case err == nil && seen <= d.countCap:
		res.TotalRows = seen // else counting was cut short: unknown
	}
	res.Rows = normalizeRows(all[:min(len(all), lim.MaxRows)], false)
	res.Truncated = seen > lim.MaxRows
	return res, normalizeRows(all[:min(len(all), keep)], true), nil
}

// collect scans up to want rows, BOOLEAN columns as bool, and steps on
// through at most countCap rows in all to count them.
func collect(rows *sql.Rows, isBool []bool, want, countCap int) (all [][]any, seen int, err error) {
	for rows.Next() {
		seen++
		if seen > want {
			if seen > countCap {
				break
			}
			continue // only counting
		}
		vals := make([]any, len(isBool))
		ptrs := make([]any, len(vals))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, 0, err
		}
		for i, v := range vals {
			if n, ok := v.(int64); ok && isBool[i] {
				vals[i] = n != 0
			}
		}
		all = append(all, vals)
	}
	return all, seen, nil
}

func normalizeRows(rows [][]any, forChart bool) [][]any {
	out := make([][]any, len(rows))
	for i, row := range rows {
		out[i] = make([]any, len(row))
		for j, v := range row {
			out[i][j] = normalize(v, forChart)
		}
	}
	return out
}

// normalize makes a scanned value one of the types QueryResult promises,
// or, forChart, one that encodes as a JSON number, string, bool or null.
func normalize(v any, forChart bool) any {
	switch x := v.(type) {
	case float64:
		switch {
		case forChart && (math.IsNaN(x) || math.IsInf(x, 0)):
			return nil
		case math.IsNaN(x):
			return "NaN"
		case math.IsInf(x, 1):
			return "Infinity"
		case math.IsInf(x, -1):
			return "-Infinity"
		}
	case []byte:
		if utf8.Valid(x) {
			return string(x)
		}
		if forChart {
			return valueText(x)
		}
	case time.Time: // only for columns declared DATE/DATETIME, which we never create
		return x.Format(time.RFC3339Nano)
	}
	return v
}

var rcSuffix = regexp.MustCompile(`\s*\(\d+\)$`)

// queryError maps a failed query to a message for the model. SQLite's own
// words are kept: they are what the model needs to fix its SQL.
func queryError(parent, qctx context.Context, lim Limits, err error) error {
	if parent.Err() != nil {
		return apperr.Wrap(parent.Err(), apperr.Cancelled, "The query was stopped.")
	}
	if errors.Is(qctx.Err(), context.DeadlineExceeded) {
		return apperr.Wrap(err, apperr.Invalid,
			"The query ran longer than %s and was stopped. Add a LIMIT, filter with WHERE, or aggregate with GROUP BY so it does less work.", lim.QueryTimeout)
	}
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return apperr.Wrap(err, apperr.Unavailable, "The query could not run; the session's database is not available.")
	}
	msg := strings.TrimPrefix(rcSuffix.ReplaceAllString(se.Error(), ""), "SQL logic error: ")
	hint := ""
	switch rc := se.Code() & 0xff; {
	case rc == sqlite3.SQLITE_AUTH || rc == sqlite3.SQLITE_READONLY:
		hint = " " + readOnlyHint
	case rc == sqlite3.SQLITE_TOOBIG:
		hint = fmt.Sprintf(" A single value may be at most %s.", sizeText(maxValueBytes))
	case strings.Contains(msg, "no such table") || strings.Contains(msg, "no such column"):
		hint = " Call list_data to see the tables and their columns."
	}
	return apperr.New(apperr.Invalid, "SQLite error: %s.%s", strings.TrimSuffix(msg, "."), hint)
}

// Table renders the result as a compact pipe table for the model: values
// cut to 60 characters, NULL for null, and a note when rows were left out.
func (r QueryResult) Table() string {
	var b strings.Builder
	r.writeTable(&b)
	switch {
	case len(r.Rows) == 0:
		b.WriteString("(no rows)\n")
	case r.Truncated && r.TotalRows >= 0:
		fmt.Fprintf(&b, "(showing the first %s of %s rows; aggregate with GROUP BY, filter with WHERE, or add LIMIT/OFFSET to see the rest)\n",
			commas(int64(len(r.Rows))), commas(int64(r.TotalRows)))
	case r.Truncated:
		fmt.Fprintf(&b, "(showing the first %s rows; there are more: aggregate with GROUP BY, filter with WHERE, or add LIMIT/OFFSET to see the rest)\n",
			commas(int64(len(r.Rows))))
	}
	return b.String()
}

func (r QueryResult) writeTable(b *strings.Builder) {
	writeRow := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" ")
			b.WriteString(c)
			b.WriteString(" |")
		}
		b.WriteString("\n")
	}
	head := make([]string, len(r.Columns))
	sep := make([]string, len(r.Columns))
	for i, c := range r.Columns {
		head[i], sep[i] = cellText(c), "---"
	}
	writeRow(head)
	writeRow(sep)
	cells := make([]string, len(r.Columns))
	for _, row := range r.Rows {
		for i := range cells {
			cells[i] = ""
			if i < len(row) {
				cells[i] = valueText(row[i])
			}
		}
		writeRow(cells)
	}
}

// valueText formats one value for Table.
func valueText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return cellText(x)
	case []byte:
		return fmt.Sprintf("<blob, %s>", sizeText(int64(len(x))))
	case float64:
		if a := math.Abs(x); a != 0 && (a < 1e-6 || a >= 1e15) {
			return strconv.FormatFloat(x, 'g', -1, 64)
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	}
	return cellText(fmt.Sprint(v))
}

// cellText keeps a string on one line and inside its cell, cut to
// cellRunes characters.
func cellText(s string) string {
	s = strings.NewReplacer("\r\n", `\n`, "\n", `\n`, "\r", `\n`, "\t", " ", "|", `\|`).Replace(s)
	if utf8.RuneCountInString(s) > cellRunes {
		s = strings.TrimRight(clip(s, cellRunes-1), `\`) + "…"
	}
	return s
}
