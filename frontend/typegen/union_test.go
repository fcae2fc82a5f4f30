package main

import (
	"strings"
	"testing"
)

// msgGo is a package with an envelope whose data's type depends on its
// kind, its variants declared in an order other than the constants'.
const msgGo = `package msg

// Kind names a message.
type Kind string

const (
	KindHello Kind = "hello"
	KindBye   Kind = "bye"
)

// Message is one message.
type Message struct {
	ID   string ` + "`json:\"id\"`" + `
	Kind Kind   ` + "`json:\"kind\"`" + `
	Data any    ` + "`json:\"data\"`" + `
}

type ByeData struct{}

func (ByeData) Kind() Kind { return KindBye }

// HelloData greets.
type HelloData struct {
	Name string ` + "`json:\"name\"`" + `
}

func (HelloData) Kind() Kind { return KindHello }
`

const msgAppGo = `package app

import "github.com/agentdeck/agentdeck/backend/msg"

type API struct{}

func (a *API) Last() (Stamped, error) { return Stamped{}, nil }

// Stamped is a message with a time.
type Stamped struct {
	msg.Message
	At string ` + "`json:\"at\"`" + `
}
`

var msgUnion = union{pkg: "backend/msg", envelope: "Message", tag: "kind", data: "data", method: "Kind"}

func generateUnion(t *testing.T, msg string) (string, error) {
	t.Helper()
	c := testConfig
	c.unions = []union{msgUnion}
	return generateTree(t, map[string]string{"app/app.go": msgAppGo, "backend/msg/msg.go": msg, "backend/turn/turn.go": turnGo}, c)
}

// A registered envelope becomes its other fields intersected with one
// {tag, data} pair per variant, in the order of the tag's constants; a
// struct that embeds it, an intersection with it.
func TestUnion(t *testing.T) {
	out, err := generateUnion(t, msgGo)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"export interface MessageBase {\n  id: string;\n}",
		"/**\n * Message is one message.\n *\n * Its data is the type its kind says: narrow by kind.\n */\n" +
			"export type Message = MessageBase & (\n" +
			"  | { kind: \"hello\"; data: HelloData }\n" +
			"  | { kind: \"bye\"; data: ByeData }\n" +
			");\n",
		`export type MessageOf<T extends Message["kind"]> = Extract<Message, { kind: T }>;`,
		"export interface HelloData {\n  name: string;\n}",
		"export interface ByeData {\n}",
		"export type Stamped = Message & {\n  at: string;\n};",
		"export const KindValues = [",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing\n%s\nin\n%s", want, out)
		}
	}
	if strings.Contains(out, "interface Message {") || strings.Contains(out, "extends Message {") {
		t.Errorf("the envelope is still written as an interface:\n%s", out)
	}
}

// An envelope of only its tag and data, the data an interface of the
// variants (the bus's shape), is the union alone: no empty base, and the
// interface is not walked.
func TestUnionWithoutBase(t *testing.T) {
	src := strings.Replace(msgGo, "\tID   string `json:\"id\"`\n", "", 1)
	src = strings.Replace(src, "Data any    `json:\"data\"`", "Data Payload `json:\"data\"`", 1)
	src += "\n// Payload is a message's data.\ntype Payload interface{ Kind() Kind }\n"
	out, err := generateUnion(t, src)
	if err != nil {
		t.Fatal(err)
	}
	want := "export type Message = (\n  | { kind: \"hello\"; data: HelloData }\n  | { kind: \"bye\"; data: ByeData }\n);\n"
	if !strings.Contains(out, want) || strings.Contains(out, "MessageBase") || strings.Contains(out, "Payload") {
		t.Errorf("want\n%s\nand no base or Payload in\n%s", want, out)
	}
}

// A union the Go does not make whole is an error that says what is wrong.
func TestUnionRefuses(t *testing.T) {
	tests := []struct {
		name, old, new, want string
	}{
		{
			name: "a constant without a variant",
			old:  "func (ByeData) Kind() Kind { return KindBye }", new: "",
			want: `no type's Kind method returns Kind "bye"`,
		},
		{
			name: "two variants of one tag",
			old:  "func (ByeData) Kind() Kind { return KindBye }", new: "func (ByeData) Kind() Kind { return KindHello }",
			want: `Kind "hello" is the tag of both ByeData and HelloData`,
		},
		{
			name: "a method that does not return a constant",
			old:  "func (ByeData) Kind() Kind { return KindBye }", new: `func (ByeData) Kind() Kind { return Kind("bye") }`,
			want: "ByeData.Kind: must be only `return Constant`",
		},
		{
			name: "an envelope without the data field",
			old:  "Data any    `json:\"data\"`", new: "Body any    `json:\"body\"`",
			want: `the envelope needs fields "kind" and "data"`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := strings.Replace(msgGo, tt.old, tt.new, 1)
			if src == msgGo {
				t.Fatalf("the test's source has no %q", tt.old)
			}
			_, err := generateUnion(t, src)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one saying %q", err, tt.want)
			}
		})
	}
}
