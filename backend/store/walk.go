package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
)

// walker reads one table of a possibly damaged file in key order, batch
// by batch. A batch that meets an unreadable page stops there; the walk
// then probes keys past the last row read (doubling the step, then
// halving back) for the first one whose page can be read, and goes on
// from it. A zeroed leaf page loses its rows; a zeroed interior page
// loses the rows under it; a row whose own overflow page is damaged is
// stepped over alone. Used by Salvage (every column) and Check (counting).
type walker struct {
	src   *DB
	table string
	cols  []string
	// st receives Unreadable and, for pair keys, a lower bound of Lost.
	st *SalvageTable
	// keys and parents are for byPair: a WITHOUT ROWID table keyed by a
	// text and an integer column, and the text values to go on from when
	// the rest of one value's rows cannot be read.
	keys    [2]string
	parents []string
	// firstK2 is where the integer key starts for each text key (events'
	// seq starts at 1), to count the rows lost at the start of one; nil
	// when unknown.
	firstK2 *int64
}

const walkBatch = 500

// stopped wraps an error of the row callback, which ends the walk as it
// is (it is not damage of the source).
type stopped struct{ err error }

func (s stopped) Error() string { return s.err.Error() }

// byRowid walks a rowid table. Each batch starts at a key (>=), never
// after one (>): SQLite seeks "> k" from the page that holds k, which is
// the damaged page when k is its last key.
func (w *walker) byRowid(ctx context.Context, fn func([]any) error) error {
	sel := fmt.Sprintf(`SELECT rowid%s FROM %s WHERE rowid >= ? ORDER BY rowid LIMIT %d`, w.colList(), quoteIdent(w.table), walkBatch)
	probe := fmt.Sprintf(`SELECT rowid FROM %s WHERE rowid >= ? ORDER BY rowid LIMIT 1`, quoteIdent(w.table))
	from := int64(math.MinInt64)
	for {
		var last int64
		n, err := w.batch(ctx, sel, []any{from}, len(w.cols)+1, func(vals []any) error {
			last = vals[0].(int64)
			return fn(vals[1:])
		})
		if n > 0 {
			if last == math.MaxInt64 {
				return nil
			}
			from = last + 1
		}
		stop, damaged, err := w.batchEnd(n, err)
		if stop {
			return err
		}
		if !damaged {
			continue
		}
		next, found, direct, err := w.nextRowid(ctx, probe, from)
		switch {
		case err != nil:
			return err
		case direct && n == 0:
			// Its key can be read, its row cannot (an overflow page of
			// it is damaged): step over that row alone.
			w.st.Unreadable++
			if next == math.MaxInt64 {
				return nil
			}
			from = next + 1
			continue
		case !direct:
			w.st.Unreadable++
		}
		if !found {
			return nil
		}
		from = next
	}
}

// nextRowid finds the first rowid from from on whose page can be read;
// found is false when nothing readable follows, direct is true when from
// itself could be probed.
func (w *walker) nextRowid(ctx context.Context, probe string, from int64) (next int64, found, direct bool, err error) {
	try := func(x int64) (ok bool, next int64, found bool, err error) {
		ok, found, err = w.probed(w.src.reader.QueryRowContext(ctx, probe, x).Scan(&next))
		return ok, next, found, err
	}
	ok, n, f, err := try(from)
	if err != nil || ok {
		return n, f, true, err
	}
	next, found, _, err = seekReadable(from, try)
	return next, found, false, err
}

// seekReadable finds the first position after from at which try can
// read, by doubling the step from from until a try reads and then halving
// the stretch between the last that could not and the first that could.
// It returns what that try found; ok is false when nothing up to MaxInt64
// can be read, and all its results are zero when err is not nil.
func seekReadable[K any](from int64, try func(int64) (ok bool, next K, found bool, err error)) (next K, found, ok bool, err error) {
	var zero K
	lo, hi := from, int64(0)
	for step := int64(1); ; step *= 2 {
		x := ahead(from, step)
		good, n, f, err := try(x)
		if err != nil {
			return zero, false, false, err
		}
		if good {
			hi, next, found = x, n, f
			break
		}
		if x == math.MaxInt64 {
			return zero, false, false, nil
		}
		lo = x
	}
	for lo+1 < hi {
		mid := middle(lo, hi)
		good, n, f, err := try(mid)
		if err != nil {
			return zero, false, false, err
		}
		if good {
			hi, next, found = mid, n, f
		} else {
			lo = mid
		}
	}
	return next, found, true, nil
}

// ahead is from+step, or MaxInt64 when that is past it (or the doubled
// step overflowed).
func ahead(from, step int64) int64 {
	if step <= 0 || from > math.MaxInt64-step {
		return math.MaxInt64
	}
	return from + step
}

// middle is halfway between lo < hi, without overflow.
func middle(lo, hi int64) int64 {
	return lo + int64((uint64(hi)-uint64(lo))/2)
}

// pairKey is a key of a table walked byPair.
type pairKey struct {
	k1 string
	k2 int64
}

// byPair walks a WITHOUT ROWID table keyed by (text, integer), from a
// key on as byRowid does.
func (w *walker) byPair(ctx context.Context, fn func([]any) error) error {
	k1, k2 := quoteIdent(w.keys[0]), quoteIdent(w.keys[1])
	cols := w.cols
	if len(cols) == 0 {
		cols = w.keys[:]
	}
	i1, i2 := index(cols, w.keys[0]), index(cols, w.keys[1])
	sel := fmt.Sprintf(`SELECT %s FROM %s WHERE (%s, %s) >= (?, ?) ORDER BY %s, %s LIMIT %d`, joinIdents(cols), quoteIdent(w.table), k1, k2, k1, k2, walkBatch)
	from := pairKey{"", math.MinInt64}
	for {
		var last pairKey
		n, err := w.batch(ctx, sel, []any{from.k1, from.k2}, len(cols), func(vals []any) error {
			last = pairKey{str(vals[i1]), num(vals[i2])}
			return fn(vals)
		})
		if n > 0 {
			from = last.succ()
		}
		stop, damaged, err := w.batchEnd(n, err)
		if stop {
			return err
		}
		if !damaged {
			continue
		}
		next, found, direct, err := w.nextPair(ctx, from)
		switch {
		case err != nil:
			return err
		case direct && n == 0:
			w.st.Unreadable++
			w.st.Lost++
			w.affect(next.k1)
			from = next.succ()
			continue
		case !direct:
			w.st.Unreadable++
			w.st.LostCount = "at_least"
			if from.k2 != math.MinInt64 {
				w.affect(from.k1) // its rows from from.k2 on may be lost
			}
			for _, p := range w.parents {
				if p > from.k1 && (!found || p < next.k1) {
					w.affect(p) // every row of it was in the stretch
				}
			}
			switch {
			case !found:
			case next.k1 == from.k1 && from.k2 != math.MinInt64:
				w.st.Lost += next.k2 - from.k2
			case w.firstK2 != nil && next.k2 > *w.firstK2:
				w.st.Lost += next.k2 - *w.firstK2
				w.affect(next.k1)
			}
		}
		if !found {
			return nil
		}
		from = next
	}
}

// affect notes a text key some of whose rows may have been lost.
func (w *walker) affect(k1 string) {
	if len(w.st.Affected) == 0 || w.st.Affected[len(w.st.Affected)-1] != k1 {
		w.st.Affected = append(w.st.Affected, k1)
	}
}

// succ is the smallest key after k.
func (k pairKey) succ() pairKey {
	if k.k2 == math.MaxInt64 {
		return pairKey{k.k1 + "\x00", math.MinInt64}
	}
	return pairKey{k.k1, k.k2 + 1}
}

// nextPair finds the first key from from on whose page can be read: later
// in the same first key if there is one, else from the next parent on.
func (w *walker) nextPair(ctx context.Context, from pairKey) (next pairKey, found, direct bool, err error) {
	k1, k2 := quoteIdent(w.keys[0]), quoteIdent(w.keys[1])
	probe := fmt.Sprintf(`SELECT %s, %s FROM %s WHERE (%s, %s) >= (?, ?) ORDER BY %s, %s LIMIT 1`, k1, k2, quoteIdent(w.table), k1, k2, k1, k2)
	try := func(at pairKey) (ok bool, next pairKey, found bool, err error) {
		ok, found, err = w.probed(w.src.reader.QueryRowContext(ctx, probe, at.k1, at.k2).Scan(&next.k1, &next.k2))
		return ok, next, found, err
	}
	if ok, n, f, err := try(from); err != nil || ok {
		return n, f, true, err
	}
	// Within from.k1: the same doubling and halving as nextRowid.
	n, f, ok, err := seekReadable(from.k2, func(k2 int64) (bool, pairKey, bool, error) {
		return try(pairKey{from.k1, k2})
	})
	if err != nil {
		return next, false, false, err
	}
	if ok {
		return n, f, false, nil
	}
	for _, p := range w.parents {
		if p <= from.k1 {
			continue
		}
		good, n, f, err := try(pairKey{p, math.MinInt64})
		if err != nil {
			return next, false, false, err
		}
		if good {
			return n, f, false, nil
		}
	}
	return next, false, false, nil
}

// scan reads a table with no key to walk by, up to its first unreadable
// page.
func (w *walker) scan(ctx context.Context, fn func([]any) error) error {
	q := fmt.Sprintf(`SELECT %s FROM %s`, joinIdents(w.cols), quoteIdent(w.table))
	_, err := w.batch(ctx, q, nil, len(w.cols), fn)
	if err != nil && isCorrupt(err) {
		w.st.Unreadable++
		w.st.LostCount = "unknown"
		return nil
	}
	if err != nil {
		return w.failed(err)
	}
	return nil
}

// batch runs q and hands each row to fn; it returns how many rows it
// handed and the error that stopped it.
func (w *walker) batch(ctx context.Context, q string, args []any, ncols int, fn func([]any) error) (int, error) {
	rows, err := w.src.reader.QueryContext(ctx, q, args...)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	vals := make([]any, ncols)
	ptrs := make([]any, ncols)
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	n := 0
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return n, err
		}
		n++
		if err := fn(vals); err != nil {
			return n, stopped{err}
		}
	}
	return n, rows.Err()
}

// batchEnd says how a batch of n rows that ended with err leaves the walk:
// stop it (err is nil when the table is read through), or go on, from a
// readable key found past the damage when damaged.
func (w *walker) batchEnd(n int, err error) (stop, damaged bool, _ error) {
	switch {
	case err == nil:
		return n < walkBatch, false, nil
	case isCorrupt(err):
		return false, true, nil
	}
	return true, false, w.failed(err)
}

// probed says what a probe that ended with err (from Scan) found: ok when
// its page could be read, found when a key was there to read.
func (w *walker) probed(err error) (ok, found bool, _ error) {
	switch {
	case err == nil:
		return true, true, nil
	case errors.Is(err, sql.ErrNoRows):
		return true, false, nil
	case isCorrupt(err):
		return false, false, nil
	}
	return false, false, w.failed(err)
}

// failed is the walk's error for a failure that is not damage.
func (w *walker) failed(err error) error {
	var s stopped
	if errors.As(err, &s) {
		return s.err
	}
	return readError(err, "reading table "+w.table)
}

func (w *walker) colList() string {
	if len(w.cols) == 0 {
		return ""
	}
	return ", " + joinIdents(w.cols)
}

func index(cols []string, name string) int {
	for i, c := range cols {
		if strings.EqualFold(c, name) {
			return i
		}
	}
	return -1
}
