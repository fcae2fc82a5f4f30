package export

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/agentdeck/agentdeck/backend/apperr"
)

// A file nested deeper than encoding/json reads is called that, not
// invalid JSON: 10^5 nested arrays are valid, only too deep.
func TestDecodeNestedTooDeeply(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	tests := []struct{ name, file, want string }{
		{"in a turn's result", `{"format":"agentdeck-session","version":3,"turns":[{"result":` + deep + `}]}`,
			"This file cannot be imported: its JSON is nested too deeply (more than 10000 levels, at byte "},
		{"invalid JSON is still called that", `{"format":"agentdeck-session","version":3,"turns":[{"result":[}]}`,
			"This file is damaged: it stops being valid JSON at byte "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Decode(context.Background(), strings.NewReader(tt.file), 1<<30)
			var ae *apperr.Error
			if !errors.As(err, &ae) || ae.Code != apperr.Invalid || !strings.HasPrefix(ae.Message, tt.want) {
				t.Fatalf("Decode = %v, want %q", err, tt.want)
			}
		})
	}
}
