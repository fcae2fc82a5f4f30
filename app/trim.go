package app

import "runtime/debug"

// trimAfterStart hands back the Go heap's free pages once the UI is ready:
// the start's garbage (migrations, the first screen's replies), which the
// runtime would otherwise return only slowly.
//
// It does not drop the process's mappings of its own binary, though that
// lowers the idle window's RSS by about 27 MB (tried for issue 48): those
// pages stay in the page cache, so the machine uses the memory all the
// same, and the code faults back in when it runs. RSS would drop; memory
// would not.
func (s *Service) trimAfterStart() {
	debug.FreeOSMemory()
}
