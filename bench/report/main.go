// Command report turns the output of `make bench` into docs/BENCHMARKS.md
// and prints the summary table.
//
// It reads the Go benchmark output (every package's `go test -bench` lines,
// concatenated, with their "pkg:" headers) and the desktop measurements
// written by scripts/bench.sh ("key value..." lines), checks each figure
// against its target, and writes the machine it ran on, the figures with
// their ratios and absolute numbers, and a line for every missed target.
//
// Usage:
//
//	go run ./bench/report -go go-bench.txt -desktop desktop.txt -out docs/BENCHMARKS.md
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"
)

func main() {
	goOut := flag.String("go", "", "the concatenated `go test -bench` output")
	desktop := flag.String("desktop", "", "the desktop measurements (key value... lines)")
	out := flag.String("out", "docs/BENCHMARKS.md", "the markdown file to write")
	took := flag.Duration("took", 0, "how long the whole run took")
	load := flag.String("load", "", "the load averages at the start and the end of the run")
	baseGo := flag.String("base-go", "", "the `go test -bench` output of the baseline tree, measured in the same run")
	baseRev := flag.String("base", "", "the baseline tree's commit")
	flag.Parse()
	if *goOut == "" {
		fmt.Fprintln(os.Stderr, "report: -go is required")
		os.Exit(2)
	}
	res, err := readGoBench(*goOut)
	if err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	dk := desktopData{}
	if *desktop != "" {
		if dk, err = readDesktop(*desktop); err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(1)
		}
	}
	cur := &data{bench: res, desktop: dk}
	rows := evaluate(figures(), cur)
	comps := evaluate(components(), cur)
	var before *beforeAfter
	if *baseGo != "" {
		baseRes, err := readGoBench(*baseGo)
		if err != nil {
			fmt.Fprintln(os.Stderr, "report:", err)
			os.Exit(1)
		}
		before = &beforeAfter{rev: *baseRev, rows: evaluate(figures(), &data{bench: baseRes, desktop: dk.baseline()}), now: rows}
	}
	mc := machineInfo()
	mc.load = *load
	doc := render(mc, rows, comps, cur, before, *took)
	if err := os.WriteFile(*out, []byte(doc), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "report:", err)
		os.Exit(1)
	}
	printTable(os.Stdout, rows)
	fmt.Printf("\nwrote %s\n", *out)
}

// benchResults holds each benchmark's metrics by unit, keyed by package
// (relative to the module) and benchmark name without the -GOMAXPROCS
// suffix: "app BenchmarkTokenPipeline50k".
type benchResults struct {
	metrics map[string]map[string]float64
	order   []string
	failed  []string // packages whose run failed
}

var (
	benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+(\d+)\s+(.*)$`)
	pkgLine   = regexp.MustCompile(`^pkg: (\S+)`)
	failLine  = regexp.MustCompile(`^(?:FAIL|---\s*FAIL:?)\s+(\S+)`)
)

const modulePath = "github.com/agentdeck/agentdeck/"

func readGoBench(path string) (*benchResults, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res := &benchResults{metrics: map[string]map[string]float64{}}
	pkg := ""
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if m := pkgLine.FindStringSubmatch(line); m != nil {
			pkg = strings.TrimPrefix(m[1], modulePath)
			continue
		}
		if m := failLine.FindStringSubmatch(line); m != nil {
			res.failed = append(res.failed, strings.TrimPrefix(m[1], modulePath))
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		key := pkg + " " + m[1]
		fields := strings.Fields(m[3])
		mets := map[string]float64{"iterations": atof(m[2])}
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				break
			}
			mets[fields[i+1]] = v
		}
		if _, seen := res.metrics[key]; !seen {
			res.order = append(res.order, key)
		}
		res.metrics[key] = mets
	}
	return res, sc.Err()
}

func atof(s string) float64 {
	v, _ := strconv.ParseFloat(s, 64)
	return v
}

// desktopData are scripts/bench.sh's desktop measurements: numbers by key
// (several samples each) and notes (why something was not measured).
type desktopData struct {
	values map[string][]float64
	notes  map[string]string
}

func readDesktop(path string) (desktopData, error) {
	d := desktopData{values: map[string][]float64{}, notes: map[string]string{}}
	f, err := os.Open(path)
	if err != nil {
		return d, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		if fields[0] == "note" && len(fields) > 2 {
			d.notes[fields[1]] = strings.Join(fields[2:], " ")
			continue
		}
		for _, s := range fields[1:] {
			if v, err := strconv.ParseFloat(s, 64); err == nil {
				d.values[fields[0]] = append(d.values[fields[0]], v)
			}
		}
	}
	return d, sc.Err()
}

// baseline is the desktop data as the baseline tree measured it: its
// window's cold starts and memory (keys base_*) in place of the app's
// (agentdeck_*), beside the same run's floor window. The history and
// browser measurements are this tree's alone, so they are left out.
func (d desktopData) baseline() desktopData {
	out := desktopData{values: map[string][]float64{}, notes: map[string]string{}}
	for k, v := range d.values {
		switch {
		case strings.HasPrefix(k, "base_"):
			out.values["agentdeck_"+strings.TrimPrefix(k, "base_")] = v
		case strings.HasPrefix(k, "floor_"):
			out.values[k] = v
		}
	}
	if n, ok := d.notes["base"]; ok {
		out.notes["desktop"] = n
	}
	return out
}

// beforeAfter is the figures of the baseline tree, measured in the same
// run, beside the current ones.
type beforeAfter struct {
	rev       string
	rows, now []row
}

// machine describes where the run happened.
type machine struct {
	cpu, os, kernel, goVersion string
	load                       string // 1, 5 and 15 min load averages at the start / at the end
	cores                      int
	memGB                      float64
	date                       time.Time
}

func machineInfo() machine {
	m := machine{date: time.Now().UTC(), cpu: "unknown", os: "unknown", kernel: "unknown"}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			k, v, ok := strings.Cut(line, ":")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			switch {
			case !ok:
			case k == "model name" && m.cpu == "unknown":
				m.cpu = v
			case k == "processor":
				m.cores++
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
				m.memGB = atof(f[1]) / (1 << 20)
			}
		}
	}
	if b, err := os.ReadFile("/etc/os-release"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "PRETTY_NAME="); ok {
				m.os = strings.Trim(v, `"`)
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = strings.TrimSpace(string(b))
	}
	m.goVersion = goVersion()
	return m
}

// goVersion is the toolchain that ran the benchmarks: `go version` as
// scripts/bench.sh recorded it, else the one that built this program.
func goVersion() string {
	if v := os.Getenv("BENCH_GO_VERSION"); v != "" {
		return strings.TrimPrefix(v, "go version ")
	}
	return runtimeVersion()
}

func printTable(w io.Writer, rows []row) {
	fmt.Fprintf(w, "%-4s %-44s %-34s %-26s %-12s %s\n", "#", "figure", "ratio", "absolute", "target", "result")
	for _, r := range rows {
		fmt.Fprintf(w, "%-4s %-44s %-34s %-26s %-12s %s\n", r.id, clip(r.what, 44), clip(r.ratio, 34), clip(r.abs, 26), r.target, r.result())
	}
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
