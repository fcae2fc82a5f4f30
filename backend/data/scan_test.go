package data

import (
	"context"
	"reflect"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

func TestScanTable(t *testing.T) {
	d := mustOpen(t)
	mustAttach(t, d, "sales.csv", "id,region,amount,ok\n1,EU,2.5,true\n2,US,,false\n")
	names, err := d.TableNames(context.Background())
	if err != nil || !reflect.DeepEqual(names, []string{"sales"}) {
		t.Fatalf("TableNames = %v, %v", names, err)
	}
	var cols []string
	var rows [][]any
	err = d.ScanTable(context.Background(), "sales", func(c []string) { cols = c }, func(r []any) error {
		rows = append(rows, append([]any(nil), r...))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []string{"id", "region", "amount", "ok"}
	wantRows := [][]any{{int64(1), "EU", 2.5, true}, {int64(2), "US", nil, false}}
	if !reflect.DeepEqual(cols, wantCols) || !reflect.DeepEqual(rows, wantRows) {
		t.Errorf("ScanTable = %v %v, want %v %v", cols, rows, wantCols, wantRows)
	}
	err = d.ScanTable(context.Background(), "nope", func([]string) {}, func([]any) error { return nil })
	if apperr.CodeOf(err) != apperr.NotFound {
		t.Errorf("an unknown table: %v, want NotFound", err)
	}
}
