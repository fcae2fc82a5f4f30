package eval

// How well a run's LLM judge agrees with a person. A cell counts when it
// has both a judge's verdict (its judge assertions: passed when every one
// of them passed) and a person's thumb on its turn (up or down; a thumb
// of 0 is no rating). A thumb up agrees with a verdict that passed, a
// thumb down with one that failed. Cells with neither, or only one, are
// left out of the figure, not counted as disagreeing.

// Agreement is the judge/human agreement of a run.
type Agreement struct {
	// Rated counts the cells with both a judge verdict and a thumb;
	// Agree those where they say the same.
	Rated int `json:"rated"`
	Agree int `json:"agree"`
	// Share is Agree / Rated, 0 when nothing is rated.
	Share float64 `json:"share"`
	// Judged counts the cells with a judge verdict, rated or not.
	Judged int `json:"judged"`
}

// JudgeVerdict is a result's judge verdict: whether its judge assertions
// all passed, and whether it has one at all.
func JudgeVerdict(r CellResult) (passed, judged bool) {
	passed = true
	for _, o := range r.Outcomes {
		if o.Kind == "judge" {
			judged = true
			passed = passed && o.Passed
		}
	}
	return passed && judged, judged
}

// JudgeAgreement is how often the judge of results agrees with thumbs,
// a person's thumb (-1, 0 or +1) by the turn id a result ran as.
func JudgeAgreement(results []CellResult, thumbs map[string]int) Agreement {
	var a Agreement
	for _, r := range results {
		passed, judged := JudgeVerdict(r)
		if !judged {
			continue
		}
		a.Judged++
		thumb := thumbs[r.TurnID]
		if r.TurnID == "" || thumb == 0 {
			continue
		}
		a.Rated++
		if passed == (thumb > 0) {
			a.Agree++
		}
	}
	if a.Rated > 0 {
		a.Share = float64(a.Agree) / float64(a.Rated)
	}
	return a
}
