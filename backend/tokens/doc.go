// Package tokens counts the tokens of a prompt before it is sent, for the
// composer's context meter (issue 23).
//
// Rules:
//
//   - OpenAI models are counted exactly, with tiktoken's vocabularies as
//     OpenAI publishes them: o200k_base for GPT-4o, GPT-4.1, GPT-4.5,
//     GPT-5, o1/o3/o4 and gpt-oss; cl100k_base for GPT-4, GPT-3.5 Turbo
//     and the text-embedding models. "openai/..." names (OpenRouter) and
//     "ft:" fine-tunes count as the model they name. Every other model
//     (Llama, Qwen, Mistral, Claude, Gemini, unknown) is estimated with
//     llm.EstimateTokens, and the Method returned says which it was, so
//     the meter can show an estimate as one. MethodFor tells without
//     counting or loading anything.
//   - Nothing is downloaded or read from disk, ever: the vocabularies are
//     compiled into the binary (github.com/tiktoken-go/tokenizer/codec,
//     pinned in go.mod).
//   - Nothing is loaded at program start. A Counter loads a vocabulary on
//     the first count that needs it, once (sync.OnceValue); New is free.
//     Once loaded, a vocabulary stays for the life of the process (the
//     library keeps it in package state, and a second Counter reuses it),
//     so the app makes one Counter and passes it down.
//   - A Counter is safe for concurrent use and starts no goroutines.
//   - Prompt counts a request the way OpenAI's cookbook does, which matches
//     the prompt_tokens its API reports: 3 tokens a message plus its role,
//     content and name (+1), 3 to prime the reply, tool calls' names and
//     arguments, and tool definitions as OpenAI renders them. Images count
//     85 each (low detail). What it cannot know (a chat template's own
//     tokens, a server's system prompt, reasoning sent back, high-detail
//     images) is for Corrected, from the last call's reported usage.
//   - Counting runs at about 4-10 MB of text a second once loaded, so a
//     400 KB conversation takes 50-100 ms: a caller counting on each
//     keystroke counts the history once and then only the draft.
//
// What it costs, measured on a 2-core Xeon with Go 1.26:
//
//   - Binary: +9.7 MB for the app (go build: 32.75 to 42.45 MB; the
//     release build with -s -w: 25.72 to 35.12 MB, +9.4 MB), nearly all of
//     it the two vocabularies as static data. Importing the codec package,
//     not the tokenizer package, lets the linker drop the p50k and r50k
//     vocabularies (2.5 MB more otherwise). An import that nothing calls
//     adds 0.17 MB.
//   - Idle: 42 KB of heap made by package initialisation (regexp2's
//     Unicode tables, the split patterns' registration) and, in the desktop
//     app idle under Xvfb, +2.1 MB RSS in its own process, nearly all of it
//     pages of the larger binary mapped from the file (+0.3 MB anonymous).
//   - First use: o200k_base loads in about 40 ms and keeps 7.0 MB of heap;
//     cl100k_base about 13 ms and 3.5 MB (BenchmarkFirstUse, each in a
//     fresh process). A process that has used both holds 10.5 MB.
//   - Counting 10 KB of English: about 2 ms with o200k_base, 1-1.5 ms with
//     cl100k_base, 0.7 MB allocated (BenchmarkText).
//
// Why this library and not pkoukk/tiktoken-go with its offline loader:
// that one embeds the vocabularies as .tiktoken text, which is smaller in
// the binary (+7.3 MB, +1.6 MB idle RSS), but it parses them on first use
// (o200k_base in 300-380 ms, allocating 48 MB on the way: peak RSS 45 MB
// against 17 MB here) and keeps 9.8 MB of heap against 7.0 MB; its
// default loader downloads the vocabularies, which only a global setter
// turns off; and it counts 1.5-2 times slower. The meter loads a
// vocabulary whenever an OpenAI model is in use, so what a load costs
// weighs more than the 2 MB of binary and 0.5 MB of idle RSS saved.
package tokens
