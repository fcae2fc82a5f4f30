package llm

import "strings"

// VisionFamilies names the model families known to see images, comma
// separated, as a model's name starts once lowercased and stripped of any
// "org/" before it: "Qwen/Qwen2.5-VL-7B-Instruct" is qwen2.5-vl,
// "gemma3:12b" is gemma3, "openai/gpt-4o-mini" is gpt-4o. It is a hint
// for the person choosing a model, never a gate: a model not listed is
// sent its images all the same, and one that refuses them says so
// (ErrNoVision). The UI reads it (generated.ts) to say so before sending.
const VisionFamilies = "llava,bakllava,qwen2.5vl,qwen2.5-vl,qwen2-vl,qwen3-vl,qwen-vl,gemma3,gemma-3,llama3.2-vision,llama-3.2-11b-vision,llama-3.2-90b-vision,llama4,llama-4,minicpm-v,moondream,granite3.2-vision,mistral-small3.1,mistral-small-3.1,mistral-small3.2,mistral-small-3.2,pixtral,internvl,smolvlm,gpt-4o,chatgpt-4o,gpt-4.1,gpt-5,o4-mini,claude-3,claude-sonnet-4,claude-opus-4,gemini"

// SeesImages reports whether a model is of a family known to see images
// (VisionFamilies).
func SeesImages(model string) bool {
	name := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		name = name[i+1:]
	}
	if name == "" {
		return false
	}
	for f := range strings.SplitSeq(VisionFamilies, ",") {
		if strings.HasPrefix(name, f) {
			return true
		}
	}
	return false
}
