package store

import (
	"context"
	"errors"
	"slices"
	"testing"
)

// appendRows keeps what the caller passed when no row comes (nil stays
// nil, empty stays empty: the JSON says null or []), appends in row
// order, and a scan's error is the call's.
func TestAppendRows(t *testing.T) {
	t.Parallel()
	db := mustOpen(t)
	ctx := context.Background()
	const q = `SELECT value FROM json_each(?) ORDER BY key`
	scan := scanInto(func(v *int) []any { return []any{v} })
	bad := errors.New("bad row")
	tests := []struct {
		name    string
		json    string
		out     []int
		scan    func(scanner) (int, error)
		want    []int
		wantNil bool
		wantErr error
	}{
		{name: "no rows into nil", json: `[]`, scan: scan, wantNil: true},
		{name: "no rows into empty", json: `[]`, out: []int{}, scan: scan, want: []int{}},
		{name: "rows in order", json: `[3, 1, 2]`, scan: scan, want: []int{3, 1, 2}},
		{name: "appends to what was there", json: `[5]`, out: []int{4}, scan: scan, want: []int{4, 5}},
		{name: "scan error", json: `[1]`, scan: func(scanner) (int, error) { return 0, bad }, wantNil: true, wantErr: bad},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := appendRows(ctx, db.reader, tt.out, tt.scan, q, tt.json)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if (got == nil) != tt.wantNil {
				t.Fatalf("got %#v, nil: want %v", got, tt.wantNil)
			}
			if !slices.Equal(got, tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
		})
	}
}
