//go:build otel

package otel_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// collectorConfig is the collector's whole configuration: the OTLP
// receiver on loopback with ports the system picks (the collector logs
// the ones it got), the file exporter writing OTLP JSON (one TracesData
// a line) to the path given, and its own telemetry quiet and off the
// network: JSON logs on stderr at info (the lines we wait for), no
// metrics server, no traces of its own. With a token, the receiver takes
// only requests that carry "Authorization: Bearer TOKEN" (contrib's
// bearertokenauth), as a hosted collector asks for its key.
func collectorConfig(out, token string) string {
	ext, auth, svcExt := "", "", ""
	if token != "" {
		ext = fmt.Sprintf("extensions:\n  bearertokenauth:\n    token: %q\n", token)
		auth = "\n        auth:\n          authenticator: bearertokenauth"
		svcExt = "\n  extensions: [bearertokenauth]"
	}
	return ext + fmt.Sprintf(`receivers:
  otlp:
    protocols:
      grpc:
        endpoint: 127.0.0.1:0%[2]s
      http:
        endpoint: 127.0.0.1:0%[2]s
exporters:
  file:
    path: %[1]q
service:%[3]s
  telemetry:
    logs:
      level: info
      encoding: json
    metrics:
      level: none
  pipelines:
    traces:
      receivers: [otlp]
      exporters: [file]
`, out, auth, svcExt)
}

// The collector's log lines this harness reads (service.go and
// otlpreceiver's otlp.go at v0.161.0).
const (
	logReady     = "Everything is ready. Begin running and processing data."
	logGRPCStart = "Starting GRPC server"
	logHTTPStart = "Starting HTTP server"
)

// collector is a running OpenTelemetry Collector. HTTP and GRPC are the
// host:port its receiver listens on.
type collector struct {
	t          *testing.T
	cmd        *exec.Cmd
	out        string
	HTTP, GRPC string
	log        *syncBuffer
	ready      chan struct{}
	done       chan struct{}
	err        error // cmd.Wait's, once done is closed
}

// startCollector starts a collector and returns once its log says it is
// ready, failing the test if it exits first. The test's cleanup kills it
// if it still runs.
func startCollector(t *testing.T) *collector { return startCollectorWith(t, "") }

// startCollectorWith starts a collector whose receiver asks for token
// (none when "").
func startCollectorWith(t *testing.T, token string) *collector {
	t.Helper()
	dir := t.TempDir()
	c := &collector{t: t, out: filepath.Join(dir, "traces.jsonl"), log: &syncBuffer{}, ready: make(chan struct{}), done: make(chan struct{})}
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(collectorConfig(c.out, token)), 0o600); err != nil {
		t.Fatal(err)
	}
	c.cmd = exec.Command(collectorBin, "--config", "file:"+cfg)
	// Nothing of the test's environment (no OTEL_* variables) reaches it.
	c.cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go c.readLog(stderr)
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill()
		<-c.done
	})
	select {
	case <-c.ready:
	case <-c.done:
		t.Fatalf("the collector exited before it was ready (%v):\n%s", c.err, c.log.String())
	}
	if c.HTTP == "" || c.GRPC == "" {
		t.Fatalf("the collector is ready but did not say where it listens (http %q, grpc %q):\n%s", c.HTTP, c.GRPC, c.log.String())
	}
	t.Logf("collector pid %d: OTLP HTTP %s, gRPC %s", c.cmd.Process.Pid, c.HTTP, c.GRPC)
	return c
}

// readLog keeps the collector's log and reads from it where the receiver
// listens and when the collector is ready; at its end it waits for the
// process.
func (c *collector) readLog(stderr interface{ Read([]byte) (int, error) }) {
	var once sync.Once
	sc := bufio.NewScanner(stderr)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		line := sc.Bytes()
		c.log.Write(append(bytes.Clone(line), '\n'))
		var l struct {
			Msg      string `json:"msg"`
			Endpoint string `json:"endpoint"`
		}
		if json.Unmarshal(line, &l) != nil {
			continue
		}
		switch l.Msg {
		case logGRPCStart:
			c.GRPC = l.Endpoint
		case logHTTPStart:
			c.HTTP = l.Endpoint
		case logReady:
			once.Do(func() { close(c.ready) })
		}
	}
	c.err = c.cmd.Wait()
	close(c.done)
}

// stop shuts the collector down gracefully (SIGTERM), which flushes the
// file exporter, and returns every span it wrote; it fails the test if
// the collector logged an error.
func (c *collector) stop() []span {
	c.t.Helper()
	spans := c.stopAny()
	if strings.Contains(c.log.String(), `"level":"error"`) {
		c.t.Fatalf("the collector logged an error:\n%s", c.log.String())
	}
	return spans
}

// stopAny is stop for a collector that may have logged errors (requests
// it refused).
func (c *collector) stopAny() []span {
	c.t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		c.t.Fatal(err)
	}
	<-c.done
	if c.err != nil {
		c.t.Fatalf("the collector did not shut down cleanly: %v\n%s", c.err, c.log.String())
	}
	return readSpansFile(c.t, c.out)
}

// kill ends the collector with SIGKILL and waits for it to be gone.
func (c *collector) kill() {
	c.t.Helper()
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		c.t.Fatal(err)
	}
	<-c.done
}

// syncBuffer is a bytes.Buffer safe to read while a process writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
