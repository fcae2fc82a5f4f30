package artifact

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agentdeck/agentdeck/backend/tool"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Name is the create_artifact tool's name, by which a workflow's agent
// asks for it.
const Name = "create_artifact"

// NewTool returns create_artifact, numbering versions with v (nil: from
// none). It changes nothing outside the turn and gives the same result
// for the same arguments and history, so a replay runs it again.
func NewTool(v *Versions) tool.Tool {
	if v == nil {
		v = NewVersions(nil)
	}
	return &artifactTool{versions: v}
}

type artifactTool struct{ versions *Versions }

// input is a call's arguments.
type input struct {
	Key     string `json:"key"`
	Title   string `json:"title"`
	Kind    string `json:"kind"`
	Content string `json:"content"`
}

func (t *artifactTool) Spec() tool.Spec {
	return tool.Spec{
		Name: Name,
		Description: "Show the user an HTML page or an SVG image as an artifact: drawn live in a sealed frame beside the chat, where its scripts run. " +
			"The frame allows no network request of any kind (no fetch, no remote scripts, styles, images or fonts: inline everything), no pop-ups, no forms, no storage and no navigation. " +
			"Send the whole page or image each time. To change an artifact, call again with the same key: that makes a new version of it, which the user can compare with the earlier ones. " +
			"kind \"svg\" needs well-formed XML with one <svg> root element.",
		Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "key": {"type": "string", "maxLength": 64, "description": "Names the artifact: the same key makes a new version of it. Defaults to one made from the title."},
    "title": {"type": "string", "minLength": 1, "maxLength": 200},
    "kind": {"type": "string", "enum": ["html", "svg"]},
    "content": {"type": "string", "minLength": 1, "description": "The whole HTML document, or the <svg> element"}
  },
  "required": ["title", "kind", "content"],
  "additionalProperties": false
}`),
	}
}

func (t *artifactTool) Execute(ctx context.Context, args json.RawMessage) (string, error) {
	var in input
	if err := json.Unmarshal(args, &in); err != nil {
		return "", fmt.Errorf("expected {key, title, kind, content}: %v", err)
	}
	if err := Check(in.Kind, in.Content); err != nil {
		return "", err
	}
	title := cleanTitle(in.Title)
	if title == "" {
		title = TitleOf(in.Kind, in.Content)
	}
	if title == "" {
		title = DefaultTitle(in.Kind)
	}
	key := KeyOf(in.Key, in.Title, in.Kind)
	n := t.versions.Next(key)
	tool.Emit(ctx, turn.Draft{Data: turn.ArtifactData{Key: key, Title: title, Kind: in.Kind, Content: in.Content, Source: turn.ArtifactFromTool, CallID: tool.CallID(ctx)}})
	return fmt.Sprintf("The artifact %q is shown to the user as version %d (key %q). To change it, call %s again with key %q and the whole new content.", title, n, key, Name, key), nil
}
