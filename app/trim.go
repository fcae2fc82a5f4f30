package app

import "runtime/debug"

// trimAfterStart hands back what the start used and the idle window does
// not: the Go heap's free pages (the start's garbage: migrations, the
// first screen's replies) and the executable's pages that only the start
// ran (releaseStartPages). What runs afterwards faults its pages back in;
// the rest stays in the page cache, not in the process.
func (s *Service) trimAfterStart() {
	debug.FreeOSMemory()
	n, err := releaseStartPages()
	if err != nil {
		s.log.Warn("could not release the start's pages of the binary", "err", err)
		return
	}
	s.log.Info("released the start's memory", "binary_mb", n>>20)
}
