package llm

import "testing"

// TestSeesImages: names as the servers list them, with their orgs, tags
// and sizes, are known by their family; a text model of a family with a
// vision sibling is not.
func TestSeesImages(t *testing.T) {
	for model, want := range map[string]bool{
		"qwen2.5vl:7b":                           true, // Ollama
		"Qwen/Qwen2.5-VL-7B-Instruct":            true, // vLLM, Hugging Face
		"lmstudio-community/gemma-3-12b-it-GGUF": true,
		"gemma3:27b":                             true,
		"llava:13b":                              true,
		"llama3.2-vision:11b":                    true,
		"openai/gpt-4o-mini":                     true, // OpenRouter
		"gpt-4.1":                                true,
		" GPT-5 ":                                true,
		"qwen2.5:7b":                             false, // the text model of the same family
		"llama3.2:3b":                            false,
		"deepseek-r1:14b":                        false,
		"gpt-3.5-turbo":                          false,
		"o3-mini":                                false,
		"":                                       false,
		"org/":                                   false,
	} {
		if got := SeesImages(model); got != want {
			t.Errorf("SeesImages(%q) = %v, want %v", model, got, want)
		}
	}
}
