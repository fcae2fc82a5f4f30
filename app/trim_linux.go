//go:build linux

package app

import (
	"bufio"
	"debug/elf"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// releaseStartPages lets go of this process's mappings of its own
// executable's read-only segments: its code, read-only data and the
// function tables the Go runtime reads. At start every package's init and
// the start path run once, scattered over the whole binary, and the kernel
// maps the pages around each one it faults in (fault-around): about 30 MB
// of a 68 MB binary stays resident for code that runs once. MADV_DONTNEED
// drops only the page-table entries: the pages stay in the page cache,
// and what runs later faults back in from there (a minor fault, no disk
// read). Writable segments (data, relocations) are never touched, so no
// state is lost. It returns the bytes of the ranges it advised.
func releaseStartPages() (int, error) {
	exe, err := elf.Open("/proc/self/exe")
	if err != nil {
		return 0, err
	}
	defer exe.Close()
	bias, err := loadBias(exe)
	if err != nil {
		return 0, err
	}
	page := uint64(os.Getpagesize())
	total := 0
	for _, p := range exe.Progs {
		if p.Type != elf.PT_LOAD || p.Flags&elf.PF_W != 0 {
			continue
		}
		// Inward to whole pages: a page shared with a writable segment stays.
		start := (p.Vaddr + bias + page - 1) &^ (page - 1)
		end := (p.Vaddr + bias + p.Memsz) &^ (page - 1)
		if end <= start {
			continue
		}
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, uintptr(start), uintptr(end-start), syscall.MADV_DONTNEED); errno != 0 {
			return total, fmt.Errorf("madvise %#x-%#x: %w", start, end, errno)
		}
		total += int(end - start)
	}
	return total, nil
}

// loadBias is where the executable is loaded against its ELF addresses:
// zero for a fixed-address executable (Go's default), the base of its first
// mapping for a position-independent one.
func loadBias(exe *elf.File) (uint64, error) {
	if exe.Type != elf.ET_DYN {
		return 0, nil
	}
	self, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0, err
	}
	maps, err := os.Open("/proc/self/maps")
	if err != nil {
		return 0, err
	}
	defer maps.Close()
	first := ^uint64(0)
	for _, p := range exe.Progs {
		if p.Type == elf.PT_LOAD && p.Off == 0 {
			first = p.Vaddr
		}
	}
	sc := bufio.NewScanner(maps)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 6 || f[5] != self || f[2] != "00000000" {
			continue
		}
		lo, err := strconv.ParseUint(strings.SplitN(f[0], "-", 2)[0], 16, 64)
		if err != nil || first == ^uint64(0) {
			break
		}
		return lo - first, nil
	}
	return 0, fmt.Errorf("no mapping of %s at offset 0", self)
}
