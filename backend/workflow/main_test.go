package workflow_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Workflows run agents, tools and model streams on goroutines of their
// own; none may outlive its turn.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
