package eval_test

import (
	"errors"
	"reflect"
	"testing"

	"github.com/agentdeck/agentdeck/backend/eval"
)

// TestParseRunOptions: what the command line and the window accept of a
// run's options, and how a refusal names the option it is about, in
// neutral words and in a caller's own.
func TestParseRunOptions(t *testing.T) {
	type want struct {
		models      []string
		filter      string
		repeat      int
		concurrency int
		capture     string
		from        string
	}
	tests := []struct {
		name string
		in   eval.RunFlags
		want want
		// flag and msg are the refusal's option and its words (Error).
		flag, msg string
	}{
		{name: "nothing asked", want: want{concurrency: 1}},
		{name: "all asked", in: eval.RunFlags{Models: []string{" a/m ", "", "b/org/m"}, Filter: "^geo", Repeat: 3, Concurrency: 4, MaxConcurrency: 8, Capture: "auto"},
			want: want{models: []string{"a/m", "b/org/m"}, filter: "^geo", repeat: 3, concurrency: 4, capture: "auto"}},
		{name: "from is a replay", in: eval.RunFlags{FromRunID: "r1"}, want: want{concurrency: 1, capture: "replay", from: "r1"}},
		{name: "from with replay", in: eval.RunFlags{Capture: "replay", FromRunID: "r1"}, want: want{concurrency: 1, capture: "replay", from: "r1"}},
		{name: "unbounded concurrency", in: eval.RunFlags{Concurrency: 64}, want: want{concurrency: 64}},

		{name: "model without provider", in: eval.RunFlags{Models: []string{"a/m", "m"}}, flag: eval.FlagModels, msg: `models: "m" is not a provider/model`},
		{name: "model with empty half", in: eval.RunFlags{Models: []string{"a/"}}, flag: eval.FlagModels, msg: `models: "a/" is not a provider/model`},
		{name: "bad filter", in: eval.RunFlags{Filter: "("}, flag: eval.FlagFilter, msg: "filter is not a regular expression: error parsing regexp: missing closing ): `(`"},
		{name: "negative repeat", in: eval.RunFlags{Repeat: -1}, flag: eval.FlagRepeat, msg: "repeat must be 1 to 100 (0: the suite's), not -1"},
		{name: "repeat past the suite's bound", in: eval.RunFlags{Repeat: 101}, flag: eval.FlagRepeat, msg: "repeat must be 1 to 100 (0: the suite's), not 101"},
		{name: "negative concurrency", in: eval.RunFlags{Concurrency: -1}, flag: eval.FlagConcurrency, msg: "concurrency must be 1 or more, not -1"},
		{name: "concurrency past the bound", in: eval.RunFlags{Concurrency: 9, MaxConcurrency: 8}, flag: eval.FlagConcurrency, msg: "concurrency must be 1 to 8, not 9"},
		{name: "bad capture", in: eval.RunFlags{Capture: "sometimes"}, flag: eval.FlagCapture, msg: `capture must be record, replay or auto, not "sometimes"`},
		{name: "from with record", in: eval.RunFlags{Capture: "record", FromRunID: "r1"}, flag: eval.FlagFrom, msg: "from needs capture replay: it names the run whose recordings a replay serves"},
		{name: "from with auto", in: eval.RunFlags{Capture: "auto", FromRunID: "r1"}, flag: eval.FlagFrom, msg: "from needs capture replay: it names the run whose recordings a replay serves"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, err := eval.ParseRunOptions(tt.in)
			if tt.flag != "" {
				var fe *eval.RunFlagError
				if !errors.As(err, &fe) || fe.Flag != tt.flag || err.Error() != tt.msg {
					t.Fatalf("got %v (%#v), want %s: %q", err, fe, tt.flag, tt.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := want{models: opts.Models, repeat: opts.Repeat, concurrency: opts.Concurrency, capture: opts.Capture, from: opts.FromRunID}
			if opts.Filter != nil {
				got.filter = opts.Filter.String()
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}

// TestRunFlagErrorSay: a caller names the options its own way, each
// one the message mentions, and a name is never read as a format verb.
func TestRunFlagErrorSay(t *testing.T) {
	_, err := eval.ParseRunOptions(eval.RunFlags{Capture: "record", FromRunID: "r1"})
	var fe *eval.RunFlagError
	if !errors.As(err, &fe) {
		t.Fatalf("%v", err)
	}
	tests := []struct {
		name string
		say  func(string) string
		want string
	}{
		{"flags", func(f string) string { return "--" + f }, "--from needs --capture replay: it names the run whose recordings a replay serves"},
		{"labels", func(f string) string {
			return map[string]string{eval.FlagFrom: "A run to replay", eval.FlagCapture: "Capture"}[f]
		}, "A run to replay needs Capture replay: it names the run whose recordings a replay serves"},
		{"a percent sign", func(f string) string { return f + "%d" }, "from%d needs capture%d replay: it names the run whose recordings a replay serves"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := fe.Say(tt.say); got != tt.want {
				t.Fatalf("got %q, want %q", got, tt.want)
			}
		})
	}
	_, err = eval.ParseRunOptions(eval.RunFlags{Models: []string{"{filter}"}})
	if !errors.As(err, &fe) || fe.Say(func(f string) string { return "--" + f }) != `--models: "{filter}" is not a provider/model` {
		t.Fatalf("a value that looks like a name is named: %v", err)
	}
}
