package eval

import (
	"math"
	"testing"
)

func TestTokenF1(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		want float64
	}{
		{name: "identical", a: "Paris is the capital", b: "Paris is the capital", want: 1},
		{name: "case and punctuation", a: "PARIS, is the capital!", b: "paris is the... capital?", want: 1},
		{name: "sets: repeats count once", a: "yes yes yes no", b: "no yes", want: 1},
		{name: "disjoint", a: "red green", b: "blue yellow", want: 0},
		{name: "both empty", a: "", b: "", want: 1},
		{name: "both without tokens", a: "?!", b: " … ", want: 1},
		{name: "one empty", a: "", b: "Paris", want: 0},
		{name: "other empty", a: "Paris", b: "!!", want: 0},
		// {the, capital, is, paris} and {paris, is, the, capital, of, france}: 2*4/(4+6).
		{name: "subset", a: "The capital is Paris", b: "Paris is the capital of France", want: 0.8},
		{name: "digits are tokens", a: "founded 1889", b: "1889", want: 2.0 / 3},
		{name: "unicode letters", a: "Ça va, Zoë?", b: "ça VA zoë", want: 1},
		{name: "decomposed accent stays in its word", a: "cafe\u0301", b: "cafe", want: 0},
		{name: "underscore splits", a: "snake_case", b: "snake case", want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := TokenF1(tc.a, tc.b)
			if math.Abs(got-tc.want) > 1e-12 {
				t.Errorf("TokenF1(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
			if back := TokenF1(tc.b, tc.a); back != got {
				t.Errorf("not symmetric: %v and %v", got, back)
			}
		})
	}
}

func FuzzTokenF1(f *testing.F) {
	for _, s := range [][2]string{
		{"Paris is the capital", "the capital of France is Paris"},
		{"", ""},
		{"?!", "a"},
		{"ÇA va", "ça VA"},
		{"\xff\xfe bad utf8", "bad"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ab, ba := TokenF1(a, b), TokenF1(b, a)
		if ab != ba {
			t.Fatalf("TokenF1 not symmetric: %v, %v", ab, ba)
		}
		if math.IsNaN(ab) || ab < 0 || ab > 1 {
			t.Fatalf("TokenF1(%q, %q) = %v, outside [0, 1]", a, b, ab)
		}
		if same := TokenF1(a, a); same != 1 {
			t.Fatalf("TokenF1(%q, itself) = %v, want 1", a, same)
		}
	})
}
