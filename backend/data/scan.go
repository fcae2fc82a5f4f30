package data

import (
	"context"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// TableNames lists the attached tables' names, in the order they were
// attached.
func (d *DB) TableNames(ctx context.Context) ([]string, error) {
	tables, err := d.Tables(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(tables))
	for i, t := range tables {
		names[i] = t.Name
	}
	return names, nil
}

// ScanTable reads every row of the attached table name, for run_code's
// scripts: columns gets the column names, then row each row in rowid
// order (the slice is reused). Cells are int64, float64 (NaN and ±Inf
// kept), string, bool (BOOLEAN columns), []byte (blobs) and nil. No row
// limit and no query timeout: ctx bounds it. An error of row stops the
// scan and is returned.
func (d *DB) ScanTable(ctx context.Context, name string, columns func([]string), row func([]any) error) error {
	tables, err := d.Tables(ctx)
	if err != nil {
		return err
	}
	var t *Table
	for i := range tables {
		if tables[i].Name == name {
			t = &tables[i]
		}
	}
	if t == nil {
		return apperr.New(apperr.NotFound, "There is no table %q.", name)
	}
	rows, err := d.reader.QueryContext(ctx, "SELECT * FROM "+quoteIdent(t.Name))
	if err != nil {
		return dbError(ctx, err, "read the table")
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return dbError(ctx, err, "read the table")
	}
	isBool := make([]bool, len(cols))
	for i, c := range t.Columns {
		if i < len(isBool) {
			isBool[i] = c.Type == TypeBoolean
		}
	}
	columns(cols)
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return dbError(ctx, err, "read the table")
		}
		for i, v := range vals {
			if n, ok := v.(int64); ok && isBool[i] {
				vals[i] = n != 0
			}
		}
		if err := row(vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return dbError(ctx, err, "read the table")
	}
	return nil
}
