package vlq

import (
	"math"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		in   []int64
		want string // "" = not checked
	}{
		{"empty", nil, ""},
		{"zero", []int64{0}, "A"},
		{"small", []int64{1, -1, 15, 16}, "CDegB"},
		{"source map sample", []int64{0, 0, 16, 1}, "AAgBC"},
		{"extremes", []int64{math.MaxInt64, math.MinInt64, math.MinInt64 + 1, -1 << 40}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b []byte
			for _, v := range tt.in {
				b = Append(b, v)
			}
			if tt.want != "" && string(b) != tt.want {
				t.Fatalf("encoded %q, want %q", b, tt.want)
			}
			n := 0
			for _, v := range tt.in {
				n += Len(v)
			}
			if n != len(b) {
				t.Fatalf("Len sums to %d, Append wrote %d", n, len(b))
			}
			r := NewReader(string(b))
			for i, want := range tt.in {
				got, err := r.Next()
				if err != nil || got != want {
					t.Fatalf("number %d: got %d, %v; want %d", i, got, err, want)
				}
			}
			if r.More() {
				t.Fatal("characters left over")
			}
		})
	}
}

func TestBadInput(t *testing.T) {
	for _, s := range []string{"g", "gggggggggggggggg", "\"", "A\\", "é"} {
		r := NewReader(s)
		var err error
		for r.More() && err == nil {
			_, err = r.Next()
		}
		if err == nil {
			t.Errorf("%q read without an error", s)
		}
	}
}

func FuzzRoundTrip(f *testing.F) {
	f.Add(int64(0), "AAgBC")
	f.Fuzz(func(t *testing.T, v int64, s string) {
		enc := Append(nil, v)
		if Len(v) != len(enc) {
			t.Fatalf("Len(%d) = %d, Append wrote %d", v, Len(v), len(enc))
		}
		r := NewReader(string(enc))
		if got, err := r.Next(); err != nil || got != v || r.More() {
			t.Fatalf("%d read back as %d, %v", v, got, err)
		}
		any := NewReader(s) // any input: an error or numbers, never a panic
		for any.More() {
			if _, err := any.Next(); err != nil {
				break
			}
		}
	})
}
