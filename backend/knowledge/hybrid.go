package knowledge

import (
	"container/heap"
	"context"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Hybrid search: the full-text (BM25) list and the cosine list over the
// place's vectors of the query's model, each cut to candidates, fused by
// reciprocal rank fusion: a passage scores the sum over the lists it is in
// of 1/(RRFK + rank), rank from 1. RRFK = 60, the value of the paper that
// introduced it (Cormack et al. 2009): it keeps one list's top few from
// outweighing agreement between the lists, and needs no tuning of scores
// that live on different scales.

// RRFK is the k of reciprocal rank fusion.
const RRFK = 60

// candidates is how many of each list take part in the fusion.
func candidates(limit int) int { return max(4*limit, 50) }

// Fuse merges ranked lists of passage ids by reciprocal rank fusion, best
// first (ties by the id, so the order is the same every time), with each
// id's fused score.
func Fuse(lists ...[]int64) ([]int64, map[int64]float64) {
	score := map[int64]float64{}
	var ids []int64
	for _, l := range lists {
		for rank, id := range l {
			if _, seen := score[id]; !seen {
				ids = append(ids, id)
			}
			score[id] += 1 / float64(RRFK+rank+1)
		}
	}
	slices.SortStableFunc(ids, func(a, b int64) int {
		switch {
		case score[a] > score[b]:
			return -1
		case score[a] < score[b]:
			return 1
		}
		return int(min(max(a-b, -1), 1))
	})
	return ids, score
}

// vectorCache keeps each place's vectors in memory, keyed by what they
// were loaded from: the place's documents with embeddings of the model
// (id and version; a changed file is a new document), so adding or
// removing a document loads them again. It keeps a few places, the most
// recently used.
type vectorCache struct {
	mu      sync.Mutex
	entries []cacheEntry // most recent last
	loads   int          // how many times vectors were read from the store (tests)
}

type cacheEntry struct {
	key  string
	vecs Vectors
}

// cachePlaces is how many places' vectors stay in memory.
const cachePlaces = 4

// cacheKey names a place's vectors of model: the documents that have them.
func cacheKey(sc Place, model string, docs []Document) (string, bool) {
	var b strings.Builder
	b.WriteString(sc.SessionID + "\x00" + sc.ProjectID + "\x00" + model)
	has := false
	for _, d := range docs {
		if d.EmbedModel == model {
			b.WriteString("\x00" + d.ID + ":" + d.Version)
			has = true
		}
	}
	return b.String(), has
}

// get returns the vectors under key, loading them with load when absent.
func (c *vectorCache) get(ctx context.Context, key string, load func(context.Context) (Vectors, error)) (Vectors, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key == key {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			return e.vecs, nil
		}
	}
	v, err := load(ctx)
	if err != nil {
		return Vectors{}, err
	}
	c.loads++
	c.entries = append(c.entries, cacheEntry{key, v})
	if len(c.entries) > cachePlaces {
		c.entries = slices.Delete(c.entries, 0, 1)
	}
	return v, nil
}

// Nearest ranks the vectors by cosine with the unit vector q (a dot
// product: both are of unit length) and returns the ids of the best k,
// best first. It scans them all, in plain Go, split across the CPUs.
func Nearest(vs Vectors, q []float32, k int) []int64 {
	n := len(vs.IDs)
	if n == 0 || k <= 0 || len(q) != vs.Dims {
		return nil
	}
	parts := min(runtime.GOMAXPROCS(0), max(n/4096, 1))
	found := make([]scoreHeap, parts)
	var wg sync.WaitGroup
	for p := range parts {
		lo, hi := p*n/parts, (p+1)*n/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			found[p] = topK(vs, q, lo, hi, k)
		}()
	}
	wg.Wait()
	var all scoreHeap
	for _, h := range found {
		all = append(all, h...)
	}
	slices.SortFunc(all, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return int(min(max(a.id-b.id, -1), 1))
	})
	out := make([]int64, 0, min(k, len(all)))
	for _, s := range all[:min(k, len(all))] {
		out = append(out, s.id)
	}
	return out
}

// topK keeps the k best of vectors lo..hi in a min-heap.
func topK(vs Vectors, q []float32, lo, hi, k int) scoreHeap {
	h := make(scoreHeap, 0, k)
	d := vs.Dims
	for i := lo; i < hi; i++ {
		s := dot(q, vs.Flat[i*d:(i+1)*d])
		if len(h) < k {
			heap.Push(&h, scored{vs.IDs[i], s})
		} else if s > h[0].score {
			h[0] = scored{vs.IDs[i], s}
			heap.Fix(&h, 0)
		}
	}
	return h
}

// dot is the dot product of two vectors of one length, four at a time.
func dot(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return s0 + s1 + s2 + s3
}

type scored struct {
	id    int64
	score float32
}

// scoreHeap is a min-heap by score: its root is the worst kept.
type scoreHeap []scored

func (h scoreHeap) Len() int           { return len(h) }
func (h scoreHeap) Less(i, j int) bool { return h[i].score < h[j].score }
func (h scoreHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *scoreHeap) Push(x any)        { *h = append(*h, x.(scored)) }
func (h *scoreHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
