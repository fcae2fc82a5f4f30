package eval_test

import (
	"testing"

	"go.uber.org/goleak"
)

// Running a case starts a turn in the background and waits for it: no
// goroutine of it may be left once the test's engine is closed.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
