package evalflow

import (
	"testing"

	"go.uber.org/goleak"
)

// The test environment does not wait for the retry loop of an activity
// whose workflow it cancelled (TestStop): that goroutine is the SDK's.
// Ours, a cell's heartbeat, must be gone.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreTopFunction("go.temporal.io/sdk/internal.(*testWorkflowEnvironmentImpl).executeActivityWithRetryForTest"))
}
