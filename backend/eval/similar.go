package eval

import (
	"fmt"
	"strings"
	"unicode"
)

// MeasureTokenF1 is the default similar_to measure (see TokenF1).
const MeasureTokenF1 = "token_f1"

// defaultSimilarThreshold is similar_to's threshold when its rule names none.
const defaultSimilarThreshold = 0.5

// TokenF1 is the F1 of the two texts' sets of word tokens: each text is
// lowercased and split into runs of letters and digits (combining marks
// stay in their word, so a decomposed "é" does not split one), and each
// distinct token counts once. With I the tokens both share, precision is
// I/|a| and recall I/|b|, and F1 = 2PR/(P+R) = 2I/(|a|+|b|), which is
// symmetric and exact for identical sets. Two texts with no tokens are
// identical (1); one with none shares nothing with the other (0).
func TokenF1(a, b string) float64 {
	ta, tb := tokenSet(a), tokenSet(b)
	if len(ta) == 0 && len(tb) == 0 {
		return 1
	}
	if len(ta) == 0 || len(tb) == 0 {
		return 0
	}
	small, large := ta, tb
	if len(small) > len(large) {
		small, large = large, small
	}
	shared := 0
	for t := range small {
		if _, ok := large[t]; ok {
			shared++
		}
	}
	return 2 * float64(shared) / float64(len(ta)+len(tb))
}

// checkSimilar compares the answer with the reference by the rule's
// measure; only token_f1 is known.
func checkSimilar(rule Similarity, answer string) AssertOutcome {
	threshold := defaultSimilarThreshold
	if rule.Threshold != nil {
		threshold = *rule.Threshold
	}
	switch rule.Measure {
	case "", MeasureTokenF1:
	default:
		return AssertOutcome{Reason: fmt.Sprintf("unknown similarity measure %q (known: %s)", rule.Measure, MeasureTokenF1)}
	}
	f1 := TokenF1(answer, rule.Reference)
	reason := fmt.Sprintf("token F1 %.2f (threshold %.2f)", f1, threshold)
	return AssertOutcome{Passed: f1 >= threshold, Score: f1, Reason: reason}
}

func tokenSet(s string) map[string]struct{} {
	words := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r)
	})
	set := make(map[string]struct{}, len(words))
	for _, w := range words {
		set[w] = struct{}{}
	}
	return set
}
