package data

import (
	"context"
	"slices"
	"strconv"

	"github.com/agentdeck/agentdeck/backend/chart"
)

// dataset is a query result saved under a name by query_data.
type dataset struct {
	rows []map[string]any
}

// Datasets returns the named datasets charts may use: saved query results,
// then attached tables (see the package doc). It reads the DB live, so
// names saved later resolve too. Callers must not modify the rows.
func (d *DB) Datasets() chart.Datasets { return datasetView{d} }

type datasetView struct{ d *DB }

var _ chart.DatasetNames = datasetView{}

func (v datasetView) Dataset(name string) ([]map[string]any, bool) {
	v.d.mu.Lock()
	ds, ok := v.d.datasets[name]
	v.d.mu.Unlock()
	if ok {
		return ds.rows, true
	}
	return v.d.tableDataset(name)
}

func (v datasetView) Names() []string {
	v.d.mu.Lock()
	names := make([]string, 0, len(v.d.datasets))
	for n := range v.d.datasets {
		names = append(names, n)
	}
	lim := v.d.limits
	v.d.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), lim.QueryTimeout)
	defer cancel()
	if tables, err := v.d.Tables(ctx); err == nil {
		for _, t := range tables {
			names = append(names, t.Name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// saveDataset keeps rows as the dataset called name, replacing any before.
func (d *DB) saveDataset(name string, columns []string, rows [][]any) {
	ds := dataset{rows: toMaps(columns, rows)}
	d.mu.Lock()
	d.datasets[name] = ds
	d.mu.Unlock()
}

// tableDataset is the first MaxDatasetRows rows of the table called name.
func (d *DB) tableDataset(name string) ([]map[string]any, bool) {
	lim := d.Limits()
	ctx, cancel := context.WithTimeout(context.Background(), lim.QueryTimeout)
	defer cancel()
	tables, err := d.Tables(ctx)
	if err != nil {
		return nil, false
	}
	for _, t := range tables {
		if t.Name != name {
			continue
		}
		q := "SELECT * FROM " + quoteIdent(t.Name) + " LIMIT " + strconv.Itoa(lim.MaxDatasetRows)
		res, rows, err := d.query(ctx, q, Limits{MaxRows: 1, QueryTimeout: lim.QueryTimeout}, lim.MaxDatasetRows)
		if err != nil {
			return nil, false
		}
		return toMaps(res.Columns, rows), true
	}
	return nil, false
}

// toMaps turns rows into objects keyed by column name; a repeated name
// (SELECT a, a) gets _2, _3, ... so no value is lost.
func toMaps(columns []string, rows [][]any) []map[string]any {
	keys := make([]string, len(columns))
	taken := map[string]bool{}
	for i, c := range columns {
		k := c
		for n := 2; taken[k]; n++ {
			k = c + "_" + strconv.Itoa(n)
		}
		taken[k] = true
		keys[i] = k
	}
	out := make([]map[string]any, len(rows))
	for i, row := range rows {
		m := make(map[string]any, len(keys))
		for j, k := range keys {
			if j < len(row) {
				m[k] = row[j]
			}
		}
		out[i] = m
	}
	return out
}
