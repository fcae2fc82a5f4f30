package knowledge

import (
	"context"
	"slices"
	"testing"
)

func TestFuse(t *testing.T) {
	tests := []struct {
		name  string
		lists [][]int64
		want  []int64
	}{
		{"one list keeps its order", [][]int64{{3, 1, 2}}, []int64{3, 1, 2}},
		{"agreement beats one list's top", [][]int64{{1, 2, 3}, {4, 2, 3}}, []int64{2, 3, 1, 4}},
		{"same ranks tie by id", [][]int64{{5, 6}, {6, 5}}, []int64{5, 6}},
		{"empty lists", [][]int64{{}, nil}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, score := Fuse(tt.lists...)
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Fuse = %v, want %v", got, tt.want)
			}
			for i := 1; i < len(got); i++ {
				if score[got[i]] > score[got[i-1]] {
					t.Errorf("scores out of order: %v", score)
				}
			}
		})
	}
	if _, score := Fuse([]int64{7}); score[7] != 1.0/(RRFK+1) {
		t.Errorf("the top of one list scores %v, want 1/(k+1)", score[7])
	}
}

func TestNearest(t *testing.T) {
	var vs Vectors
	for i, v := range [][]float32{{1, 0}, {0.6, 0.8}, {0, 1}, {-1, 0}} {
		vs.Add(int64(i+10), Unit(v))
	}
	if vs.Add(99, []float32{1, 2, 3}) {
		t.Error("a vector of another length was added")
	}
	if got := Nearest(vs, Unit([]float32{0.1, 1}), 2); !slices.Equal(got, []int64{12, 11}) {
		t.Errorf("Nearest = %v, want [12 11]", got)
	}
	if got := Nearest(vs, []float32{1}, 2); got != nil {
		t.Errorf("a query of another length found %v", got)
	}
}

func TestVectorCacheReloadsWhenDocumentsChange(t *testing.T) {
	ctx := context.Background()
	place := Place{SessionID: "s"}
	docs := []Document{{ID: "a", Version: "1", EmbedModel: "m"}, {ID: "b", Version: "2"}}
	var c vectorCache
	load := func(context.Context) (Vectors, error) {
		return Vectors{IDs: []int64{1}, Flat: []float32{1}, Dims: 1}, nil
	}
	get := func(docs []Document) {
		t.Helper()
		key, ok := cacheKey(place, "m", docs)
		if !ok {
			t.Fatal("no document with vectors")
		}
		if _, err := c.get(ctx, key, load); err != nil {
			t.Fatal(err)
		}
	}
	get(docs)
	get(docs)
	if c.loads != 1 {
		t.Fatalf("%d loads for the same documents, want 1", c.loads)
	}
	docs[1].EmbedModel = "m" // b now has vectors of m
	get(docs)
	get(docs[:1]) // b removed: back to a alone, still cached
	if c.loads != 2 {
		t.Fatalf("%d loads after one change, want 2", c.loads)
	}
	get([]Document{{ID: "c", Version: "3", EmbedModel: "m"}})
	if c.loads != 3 {
		t.Fatalf("%d loads after a new document, want 3", c.loads)
	}
	if _, ok := cacheKey(place, "other", docs); ok {
		t.Error("documents of model m have vectors of model other")
	}
	for i := range cachePlaces + 2 {
		get([]Document{{ID: string(rune('d' + i)), Version: "x", EmbedModel: "m"}})
	}
	if len(c.entries) != cachePlaces {
		t.Errorf("%d places cached, want at most %d", len(c.entries), cachePlaces)
	}
}
