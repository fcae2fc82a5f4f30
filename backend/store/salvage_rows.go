package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// How a salvage writes the new file: batched inserts that a constraint may
// refuse, and the columns and keys both files share.

// batchWriter inserts into the new file in transactions of a few thousand
// rows.
type batchWriter struct {
	db    *DB
	tx    *sql.Tx
	stmts map[string]*sql.Stmt
	n     int
}

const salvageBatch = 2000

// insert writes one row and reports whether it was written: false for a
// row a constraint refuses (it refers to a lost row).
func (b *batchWriter) insert(ctx context.Context, q string, args []any) (bool, error) {
	if b.tx == nil {
		tx, err := b.db.writer.BeginTx(ctx, nil)
		if err != nil {
			return false, writeError(err, "writing the salvaged database")
		}
		b.tx, b.stmts = tx, map[string]*sql.Stmt{}
	}
	st := b.stmts[q]
	if st == nil {
		var err error
		if st, err = b.tx.PrepareContext(ctx, q); err != nil {
			return false, writeError(err, "writing the salvaged database")
		}
		b.stmts[q] = st
	}
	if _, err := st.ExecContext(ctx, args...); err != nil {
		if isConstraint(err) {
			return false, nil
		}
		return false, writeError(err, "writing the salvaged database")
	}
	if b.n++; b.n >= salvageBatch {
		return true, b.commit()
	}
	return true, nil
}

func (b *batchWriter) commit() error {
	if b.tx == nil {
		return nil
	}
	tx := b.tx
	b.tx, b.stmts, b.n = nil, nil, 0
	if err := tx.Commit(); err != nil {
		return writeError(err, "writing the salvaged database")
	}
	return nil
}

func (b *batchWriter) rollback() {
	if b.tx != nil {
		_ = b.tx.Rollback()
		b.tx, b.stmts, b.n = nil, nil, 0
	}
}

func isConstraint(err error) bool {
	return err != nil && strings.Contains(err.Error(), "constraint failed")
}

// commonColumns are the columns of table in the new file that the source
// has too, in the new file's order.
func (s *salvager) commonColumns(ctx context.Context, table string) ([]string, error) {
	dst, err := tableColumns(ctx, s.dst.reader, table)
	if err != nil {
		return nil, readError(err, "reading the new file's schema")
	}
	src, err := tableColumns(ctx, s.src.reader, table)
	if err != nil {
		return nil, readError(err, "reading the columns of table "+table)
	}
	var out []string
	for _, c := range dst {
		if slices.Contains(src, c) {
			out = append(out, c)
		}
	}
	return out, nil
}

func tableColumns(ctx context.Context, q *sql.DB, table string) ([]string, error) {
	return queryColumn[string](ctx, q, `SELECT name FROM pragma_table_info(?)`, table)
}

// pairKey returns a WITHOUT ROWID table's primary key when it is a text
// and an integer column (events, turn_calls: turn_id and a number).
func (s *salvager) pairKey(ctx context.Context, table string) (string, string, bool) {
	rows, err := s.src.reader.QueryContext(ctx, `SELECT name, type FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk`, table)
	if err != nil {
		return "", "", false
	}
	defer rows.Close()
	var names, types []string
	for rows.Next() {
		var n, t string
		if rows.Scan(&n, &t) != nil {
			return "", "", false
		}
		names, types = append(names, n), append(types, strings.ToUpper(t))
	}
	if len(names) != 2 || types[0] != "TEXT" || types[1] != "INTEGER" {
		return "", "", false
	}
	return names[0], names[1], true
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

func joinIdents(cols []string) string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = quoteIdent(c)
	}
	return strings.Join(q, ", ")
}

func str(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case []byte:
		return string(x)
	case nil:
		return ""
	}
	return fmt.Sprint(v)
}

func num(v any) int64 {
	n, _ := v.(int64)
	return n
}
