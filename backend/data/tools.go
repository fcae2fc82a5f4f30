package data

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/agentdeck/agentdeck/backend/apperr"
	"github.com/agentdeck/agentdeck/backend/chart"
	"github.com/agentdeck/agentdeck/backend/tool"
)

// Names of the tools Tools returns.
const (
	ToolListData  = "list_data"
	ToolQueryData = "query_data"
)

// sampleRows is how many rows list_data shows per table.
const sampleRows = 3

var datasetName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,40}$`)

// Tools returns list_data and query_data over d. Zero fields of lim take
// the DB's limits (see SetLimits). Neither tool has side effects: saving a
// named dataset only changes what Datasets returns.
func (d *DB) Tools(lim Limits) []tool.Tool {
	lim = lim.or(d.Limits())
	return []tool.Tool{
		tool.Func{
			Def: tool.Spec{
				Name: ToolListData,
				Description: "List the data the user attached to this session: every table with the file it came from, " +
					"its row count, its columns and their types, and a few sample rows. Call it before writing SQL for query_data.",
				Parameters: json.RawMessage(`{"type": "object", "properties": {}, "additionalProperties": false}`),
			},
			Fn: func(ctx context.Context, _ json.RawMessage) (string, error) { return d.listData(ctx, lim) },
		},
		tool.Func{
			Def: tool.Spec{
				Name: ToolQueryData,
				Description: fmt.Sprintf("Run one read-only SQLite SELECT (or WITH ... SELECT) over the attached tables and get the rows back "+
					"(at most %d; aggregate for more). BOOLEAN columns hold 1/0; DATE columns hold ISO 8601 text, so use date(), "+
					"strftime('%%Y-%%m', col) and comparisons like col >= '2024-01-01'. A query is stopped after %s. "+
					"Give a name to keep the result (up to %d rows) as a dataset for the %s tool: \"data\": {\"name\": \"...\"}.",
					lim.MaxRows, lim.QueryTimeout, lim.MaxDatasetRows, chart.ToolName),
				Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "sql": {"type": "string", "minLength": 1, "description": "One SELECT or WITH ... SELECT statement in SQLite syntax"},
    "name": {"type": "string", "pattern": "^[a-z][a-z0-9_]{0,40}$", "description": "Optional: save the result as a chart dataset with this name, e.g. sales_by_region"}
  },
  "required": ["sql"],
  "additionalProperties": false
}`),
			},
			Fn: func(ctx context.Context, args json.RawMessage) (string, error) { return d.queryData(ctx, lim, args) },
		},
	}
}

func (d *DB) queryData(ctx context.Context, lim Limits, args json.RawMessage) (string, error) {
	var in struct {
		SQL  string `json:"sql"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(args, &in); err != nil {
		return "", apperr.Wrap(err, apperr.Invalid, "Expected the arguments {\"sql\": \"SELECT ...\", \"name\": \"optional_dataset_name\"}.")
	}
	if in.Name != "" && !datasetName.MatchString(in.Name) {
		return "", apperr.New(apperr.Invalid, "The dataset name %q is not allowed: use lowercase letters, digits and _, starting with a letter, at most 41 characters (like sales_by_region).", clip(in.Name, 60))
	}
	keep := 0
	if in.Name != "" {
		keep = lim.MaxDatasetRows
	}
	res, kept, err := d.query(ctx, in.SQL, lim, keep)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString(res.Table())
	if in.Name != "" {
		d.saveDataset(in.Name, res.Columns, kept)
		switch {
		case len(kept) < lim.MaxDatasetRows || res.TotalRows == len(kept):
			fmt.Fprintf(&b, "Saved as dataset %q (%s %s). Chart it with %s using \"data\": {\"name\": %q}.\n",
				in.Name, commas(int64(len(kept))), plural(len(kept), "row", "rows"), chart.ToolName, in.Name)
		default:
			fmt.Fprintf(&b, "Saved as dataset %q, but only its first %s rows: aggregate in the query to chart all of it. Chart it with %s using \"data\": {\"name\": %q}.\n",
				in.Name, commas(int64(len(kept))), chart.ToolName, in.Name)
		}
	}
	return b.String(), nil
}

func (d *DB) listData(ctx context.Context, lim Limits) (string, error) {
	tables, err := d.Tables(ctx)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if len(tables) == 0 {
		b.WriteString("No data is attached to this session yet. The user can attach Excel workbooks (.xlsx, one table per sheet) and CSV, TSV, JSON or JSON Lines files.\n")
	} else {
		fmt.Fprintf(&b, "%d attached %s. Query with %s (SQLite, read-only). BOOLEAN columns hold 1/0 (shown as true/false); DATE columns hold ISO 8601 text.\n",
			len(tables), plural(len(tables), "table", "tables"), ToolQueryData)
	}
	for _, t := range tables {
		fmt.Fprintf(&b, "\n## %s (from %s, %s %s)\n", displayIdent(t.Name), t.Source, commas(t.Rows), plural(int(t.Rows), "row", "rows"))
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = displayIdent(c.Name) + " " + c.Type
		}
		fmt.Fprintf(&b, "Columns: %s\n", strings.Join(cols, ", "))
		if t.Rows == 0 {
			continue
		}
		q := fmt.Sprintf("SELECT * FROM %s LIMIT %d", quoteIdent(t.Name), sampleRows)
		res, _, err := d.query(ctx, q, Limits{MaxRows: sampleRows, QueryTimeout: lim.QueryTimeout}, 0)
		if err != nil {
			if ctx.Err() != nil {
				return "", err
			}
			fmt.Fprintf(&b, "(sample rows unavailable: %s)\n", apperr.MessageOf(err))
			continue
		}
		res.Truncated = false // a sample, not a cut-off result
		b.WriteString(res.Table())
	}
	d.mu.Lock()
	var saved []string
	for name, ds := range d.datasets {
		saved = append(saved, fmt.Sprintf("%s (%s %s)", name, commas(int64(len(ds.rows))), plural(len(ds.rows), "row", "rows")))
	}
	d.mu.Unlock()
	slices.Sort(saved)
	if len(saved) > 0 {
		fmt.Fprintf(&b, "\nSaved datasets for %s: %s\n", chart.ToolName, strings.Join(saved, ", "))
	}
	return b.String(), nil
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// displayIdent shows an identifier as the model must write it: bare when
// it can be, else double-quoted.
func displayIdent(s string) string {
	if plainIdent.MatchString(s) && !sqliteKeywords[strings.ToUpper(s)] {
		return s
	}
	return quoteIdent(s)
}

var plainIdent = regexp.MustCompile(`^[a-z_][a-z0-9_]*$`)

// sqliteKeywords are SQLite's keywords (https://sqlite.org/lang_keywords.html).
var sqliteKeywords = func() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields(`ABORT ACTION ADD AFTER ALL ALTER ALWAYS ANALYZE AND AS ASC ATTACH AUTOINCREMENT
		BEFORE BEGIN BETWEEN BY CASCADE CASE CAST CHECK COLLATE COLUMN COMMIT CONFLICT CONSTRAINT CREATE CROSS
		CURRENT CURRENT_DATE CURRENT_TIME CURRENT_TIMESTAMP DATABASE DEFAULT DEFERRABLE DEFERRED DELETE DESC
		DETACH DISTINCT DO DROP EACH ELSE END ESCAPE EXCEPT EXCLUDE EXCLUSIVE EXISTS EXPLAIN FAIL FILTER FIRST
		FOLLOWING FOR FOREIGN FROM FULL GENERATED GLOB GROUP GROUPS HAVING IF IGNORE IMMEDIATE IN INDEX INDEXED
		INITIALLY INNER INSERT INSTEAD INTERSECT INTO IS ISNULL JOIN KEY LAST LEFT LIKE LIMIT MATCH MATERIALIZED
		NATURAL NO NOT NOTHING NOTNULL NULL NULLS OF OFFSET ON OR ORDER OTHERS OUTER OVER PARTITION PLAN PRAGMA
		PRECEDING PRIMARY QUERY RAISE RANGE RECURSIVE REFERENCES REGEXP REINDEX RELEASE RENAME REPLACE RESTRICT
		RETURNING RIGHT ROLLBACK ROW ROWS SAVEPOINT SELECT SET TABLE TEMP TEMPORARY THEN TIES TO TRANSACTION
		TRIGGER UNBOUNDED UNION UNIQUE UPDATE USING VACUUM VALUES VIEW VIRTUAL WHEN WHERE WINDOW WITH WITHOUT`) {
		m[k] = true
	}
	return m
}()
