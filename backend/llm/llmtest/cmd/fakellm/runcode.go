package main

import (
	"time"

	"github.com/agentdeck/agentdeck/backend/llm/llmtest"
)

// runCodeBad is the first script of "run code": a misspelt name (counts
// read as count) on line 4, which run_code reports at its line and column.
const runCodeBad = `def is_prime(n):
    return n > 1 and all([n % d != 0 for d in range(2, n) if d * d <= n])

counts = {}
for n in range(2, 200):
    if is_prime(n):
        counts[n % 10] = count.get(n % 10, 0) + 1
result = counts
`

// runCodeGood is the corrected script: the primes below 200 by last
// digit, returned as a Vega-Lite bar chart.
const runCodeGood = `def is_prime(n):
    return n > 1 and all([n % d != 0 for d in range(2, n) if d * d <= n])

counts = {}
for n in range(2, 200):
    if is_prime(n):
        counts[n % 10] = counts.get(n % 10, 0) + 1
print("primes below 200:", sum(counts.values()))
result = {
    "$schema": "https://vega.github.io/schema/vega-lite/v6.json",
    "title": "Primes below 200 by last digit",
    "mark": "bar",
    "data": {"values": [{"digit": str(d), "primes": counts[d]} for d in sorted(counts.keys())]},
    "encoding": {
        "x": {"field": "digit", "type": "nominal", "title": "Last digit"},
        "y": {"field": "primes", "type": "quantitative", "title": "Primes"},
    },
}
`

// runCodeAnswer is the answer after the chart.
const runCodeAnswer = "There are 46 primes below 200. Apart from 2 and 5, they end in 1, 3, 7 or 9, about evenly: the chart shows each digit's count."

// runCode answers a message holding "run code": a run_code call whose
// script fails (a misspelt name), then the corrected script, which
// returns a chart, then an answer. Without run_code it says so.
func runCode(r llmtest.Request) llmtest.Reply {
	if !hasTool(r, "run_code") {
		return text("I cannot run code here: the run_code tool is not offered to me.", 4)
	}
	switch toolResults(r) {
	case 0:
		return call("rc1", "run_code", map[string]any{"code": runCodeBad})
	case 1:
		return call("rc2", "run_code", map[string]any{"code": runCodeGood})
	}
	return llmtest.Reply{Chunks: llmtest.Text(runCodeAnswer, 12), Delay: 20 * time.Millisecond,
		Usage: &llmtest.Usage{PromptTokens: 640, CompletionTokens: 36, TotalTokens: 676}}
}
