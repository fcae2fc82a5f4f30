package store

import (
	"math"
	"testing"
)

// The walk's steps start at the smallest key and double up to the
// largest: they must neither overflow nor stall there.
func TestWalkStepsStayInRange(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		from, step     int64
		want           int64
		lo, hi, middle int64
	}{
		{"small", 5, 4, 9, 5, 9, 7},
		{"from the smallest key", math.MinInt64, 1 << 62, math.MinInt64 + 1<<62, math.MinInt64, math.MaxInt64, -1},
		{"past the largest", math.MaxInt64 - 3, 8, math.MaxInt64, math.MaxInt64 - 3, math.MaxInt64, math.MaxInt64 - 2},
		{"a doubled step that overflowed", 0, math.MinInt64, math.MaxInt64, -1, 1, 0},
		{"a step of zero", 7, 0, math.MaxInt64, 7, 8, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ahead(tt.from, tt.step); got != tt.want {
				t.Errorf("ahead(%d, %d) = %d, want %d", tt.from, tt.step, got, tt.want)
			}
			if got := middle(tt.lo, tt.hi); got != tt.middle {
				t.Errorf("middle(%d, %d) = %d, want %d", tt.lo, tt.hi, got, tt.middle)
			}
		})
	}
	// Doubling from 1 reaches MaxInt64 in at most 64 steps.
	n, x := 0, int64(0)
	for step := int64(1); x != math.MaxInt64; step *= 2 {
		x = ahead(math.MinInt64, step)
		if n++; n > 65 {
			t.Fatal("the steps never reach the largest key")
		}
	}
}
