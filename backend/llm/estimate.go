package llm

// EstimateTokens guesses the token count of s (about four bytes a token).
func EstimateTokens(s string) int {
	return (len(s) + 3) / 4
}
