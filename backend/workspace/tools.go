package workspace

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/agentdeck/agentdeck/backend/tool"
)

// Names of the workspace tools.
const (
	ToolListFiles = "list_files"
	ToolReadFile  = "read_file"
	ToolWriteFile = "write_file"
)

// Tools returns list_files, read_file and write_file on this workspace.
// Only write_file has side effects.
func (w *Workspace) Tools() []tool.Tool {
	return []tool.Tool{
		tool.Func{
			Def: tool.Spec{
				Name: ToolListFiles,
				Description: fmt.Sprintf("List files and folders in the workspace with their type (file, dir, link), size in bytes and modification time. "+
					"Paths are relative to the workspace; the result's paths can be passed to read_file as they are. "+
					"Set recursive to go into subfolders (.git is not entered unless you list it by path). "+
					"pattern is a glob (*, ?, [abc]) matched against each entry's name, or against its path below the listed folder if the pattern has a /. "+
					"At most %d entries are returned.", w.lim.MaxListEntries),
				Parameters: listSchema,
			},
			Fn: w.listFiles,
		},
		tool.Func{
			Def: tool.Spec{
				Name: ToolReadFile,
				Description: fmt.Sprintf("Read a text file in the workspace. Each line comes back prefixed with its number (\"12 | text\"), and the total line count is given. "+
					"start_line and end_line (1-based, inclusive) select a part. At most %s is returned at once: read a larger file in parts. "+
					"Binary files are refused.", byteSize(w.lim.MaxReadBytes)),
				Parameters: readSchema,
			},
			Fn: w.readFile,
		},
		tool.Func{
			Def: tool.Spec{
				Name: ToolWriteFile,
				Description: fmt.Sprintf("Write a text file in the workspace, creating missing folders. "+
					"mode \"create\" (the default) refuses if the file exists; \"overwrite\" replaces it. "+
					"The file is written whole and at once; content is at most %s.", byteSize(w.lim.MaxWriteBytes)),
				Parameters:  writeSchema,
				SideEffects: true,
			},
			Fn: w.writeFile,
		},
	}
}

// The schemas are strict: no other properties, required ones listed. A
// path's length is bounded well above any real path and far below abuse.
var (
	listSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "maxLength": 4096, "description": "Folder (or file) to list, relative to the workspace. Default: . (the workspace itself)"},
    "recursive": {"type": "boolean", "description": "Also list the contents of subfolders. Default: false"},
    "pattern": {"type": "string", "maxLength": 256, "description": "Glob such as *.go; only matching entries are listed"}
  },
  "additionalProperties": false
}`)
	readSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "maxLength": 4096, "description": "File to read, relative to the workspace"},
    "start_line": {"type": "integer", "minimum": 1, "description": "First line to return, 1-based. Default: 1"},
    "end_line": {"type": "integer", "minimum": 1, "description": "Last line to return, inclusive. Default: the last line"}
  },
  "required": ["path"],
  "additionalProperties": false
}`)
	writeSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "minLength": 1, "maxLength": 4096, "description": "File to write, relative to the workspace"},
    "content": {"type": "string", "description": "The whole new content of the file"},
    "mode": {"type": "string", "enum": ["create", "overwrite"], "description": "create (default) refuses if the file exists; overwrite replaces it"}
  },
  "required": ["path", "content"],
  "additionalProperties": false
}`)
)

// decode reads a tool's arguments strictly. The engine has checked them
// against the schema already; this guards direct callers.
func decode(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage(`{}`)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("the arguments do not match the tool's schema: %v", err)
	}
	return nil
}
