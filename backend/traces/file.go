package traces

import (
	"context"
	"io"
	"sync"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// FileClient is an OTLP client that writes each request it would send as
// one line of OTLP/JSON (a TracesData object in the OTLP specification's
// JSON encoding: hex ids, enums as integers; see MarshalOTLPJSON): the
// file holds exactly what a collector would have received, and a
// collector's own JSON reader reads each line.
type FileClient struct {
	mu sync.Mutex
	w  io.Writer
}

// NewFileClient writes to w.
func NewFileClient(w io.Writer) *FileClient { return &FileClient{w: w} }

var _ otlptrace.Client = (*FileClient)(nil)

func (c *FileClient) Start(context.Context) error { return nil }
func (c *FileClient) Stop(context.Context) error  { return nil }

// UploadTraces writes the request as one line.
func (c *FileClient) UploadTraces(_ context.Context, rs []*tracepb.ResourceSpans) error {
	b, err := MarshalOTLPJSON(&tracepb.TracesData{ResourceSpans: rs})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	_, err = c.w.Write(append(b, '\n'))
	return err
}
