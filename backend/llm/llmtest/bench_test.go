package llmtest

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
)

// BenchmarkStream50kTokens streams 50,000 tokens and reads them with a bare
// bufio.Scanner: the cost of the server's side of a long stream.
func BenchmarkStream50kTokens(b *testing.B) {
	const tokens = 50_000
	srv := NewServer(b)
	reply := Reply{Chunks: Tokens(tokens)}
	srv.Respond(func(Request) Reply { return reply })
	body := chatBody(true, false)
	client := &http.Client{}
	b.ReportAllocs()
	var bytes int64
	for b.Loop() {
		resp, err := client.Post(srv.URL()+"/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		sc := bufio.NewScanner(resp.Body)
		events, n := 0, int64(0)
		for sc.Scan() {
			n += int64(len(sc.Bytes())) + 1
			if len(sc.Bytes()) > 0 {
				events++
			}
		}
		resp.Body.Close()
		if err := sc.Err(); err != nil {
			b.Fatal(err)
		}
		if events != tokens+2 { // tokens, the stop chunk, [DONE]
			b.Fatalf("%d events, want %d", events, tokens+2)
		}
		bytes = n
	}
	b.SetBytes(bytes)
	b.ReportMetric(float64(tokens)*float64(b.N)/b.Elapsed().Seconds(), "tokens/s")
}
