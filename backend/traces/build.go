package traces

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/agentdeck/agentdeck/backend/export"
	"github.com/agentdeck/agentdeck/backend/llm"
	"github.com/agentdeck/agentdeck/backend/turn"
)

// Options say what a turn's trace carries beyond its shape and numbers.
type Options struct {
	// Content adds the messages (gen_ai.input.messages,
	// gen_ai.output.messages) and the tool calls' arguments and results.
	Content bool
	// Version is the service.version of the trace's resource.
	Version string
}

// Agentdeck's own attributes, for what the GenAI conventions have no name.
const (
	AttrTurnID          = attribute.Key("agentdeck.turn.id")
	AttrTurnSeq         = attribute.Key("agentdeck.turn.seq")
	AttrTurnState       = attribute.Key("agentdeck.turn.state")
	AttrTurnOutcome     = attribute.Key("agentdeck.turn.outcome")
	AttrTermination     = attribute.Key("agentdeck.turn.termination")
	AttrStopped         = attribute.Key("agentdeck.turn.stopped")
	AttrInterrupted     = attribute.Key("agentdeck.turn.interrupted")
	AttrParentTurn      = attribute.Key("agentdeck.turn.parent_id")
	AttrStep            = attribute.Key("agentdeck.step.id")
	AttrStageName       = attribute.Key("agentdeck.stage.name")
	AttrStageAgent      = attribute.Key("agentdeck.stage.agent")
	AttrStagePhase      = attribute.Key("agentdeck.stage.phase")
	AttrStageOutcome    = attribute.Key("agentdeck.stage.outcome")
	AttrStageTerminates = attribute.Key("agentdeck.stage.termination")
	AttrCostUSD         = attribute.Key("agentdeck.cost_usd")
	AttrEstimated       = attribute.Key("agentdeck.usage.estimated")
	AttrCapture         = attribute.Key("agentdeck.capture")
	AttrResultSize      = attribute.Key("agentdeck.tool.result_size")
	AttrReviewThumb     = attribute.Key("agentdeck.review.thumb")
	AttrReviewScore     = attribute.Key("agentdeck.review.score")
	AttrReviewLabels    = attribute.Key("agentdeck.review.labels")
	AttrReviewNote      = attribute.Key("agentdeck.review.note")
)

// ServiceName is the resource's service.name.
const ServiceName = "agentdeck"

// Build returns one stored turn as the spans of its trace, ended, with
// the times the record holds. It is the one place a trace is made: live
// export and the export of past turns both call it with the record as
// the store reads it, so a turn's trace is the same whichever sent it.
func Build(sess *export.Session, t *export.Turn, opts Options) []sdktrace.ReadOnlySpan {
	var got collected
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithIDGenerator(ids{}),
		sdktrace.WithSampler(sdktrace.AlwaysSample()),
		sdktrace.WithResource(Resource(opts.Version)),
		sdktrace.WithSpanProcessor(&got),
		sdktrace.WithRawSpanLimits(sdktrace.SpanLimits{
			AttributeValueLengthLimit: -1, AttributeCountLimit: 128, EventCountLimit: 128, LinkCountLimit: 0,
			AttributePerEventCountLimit: 32, AttributePerLinkCountLimit: 0,
		}),
	)
	b := builder{tracer: tp.Tracer("github.com/agentdeck/agentdeck/backend/traces", trace.WithSchemaURL(semconv.SchemaURL)),
		sess: sess, t: t, opts: opts, traceID: traceIDOf(t.ID), reviews: reviewAttributes(t)}
	b.build()
	_ = tp.Shutdown(context.Background())
	return got.spans
}

// Resource is what every trace says of its sender.
func Resource(version string) *resource.Resource {
	attrs := []attribute.KeyValue{semconv.ServiceName(ServiceName)}
	if version != "" {
		attrs = append(attrs, semconv.ServiceVersion(version))
	}
	return resource.NewWithAttributes(semconv.SchemaURL, attrs...)
}

// collected keeps the spans Build ends, in the order they end.
type collected struct {
	mu    sync.Mutex
	spans []sdktrace.ReadOnlySpan
}

func (c *collected) OnStart(context.Context, sdktrace.ReadWriteSpan) {}
func (c *collected) OnEnd(s sdktrace.ReadOnlySpan) {
	c.mu.Lock()
	c.spans = append(c.spans, s)
	c.mu.Unlock()
}
func (c *collected) Shutdown(context.Context) error   { return nil }
func (c *collected) ForceFlush(context.Context) error { return nil }

type builder struct {
	tracer  trace.Tracer
	sess    *export.Session
	t       *export.Turn
	opts    Options
	traceID trace.TraceID
	reviews map[string][]attribute.KeyValue
}

// span is one span to start: its step, name, kind, times and attributes.
type span struct {
	step       string
	name       string
	kind       trace.SpanKind
	start, end time.Time
	attrs      []attribute.KeyValue
	err        string // non-empty: the span failed with this message
	errType    string
}

func (b *builder) start(parent context.Context, s span) (context.Context, trace.Span) {
	if s.end.Before(s.start) {
		s.end = s.start
	}
	attrs := append(s.attrs, AttrStep.String(s.step))
	attrs = append(attrs, b.reviews[s.step]...)
	ctx := withStep(parent, b.traceID, b.t.ID, s.step)
	ctx, sp := b.tracer.Start(ctx, s.name, trace.WithSpanKind(s.kind), trace.WithTimestamp(s.start), trace.WithAttributes(nonEmpty(attrs)...))
	if s.err != "" {
		sp.SetStatus(codes.Error, s.err)
		if s.errType != "" {
			sp.SetAttributes(semconv.ErrorTypeKey.String(s.errType))
		}
	}
	return ctx, sp
}

func (b *builder) build() {
	t := b.t
	root := b.rootSpan()
	ctx, sp := b.start(context.Background(), root)
	stageCtx := map[string]context.Context{}
	type open struct {
		sp  trace.Span
		end time.Time
	}
	var stages []open
	for i, st := range t.Stages {
		s := b.stageSpan(i, st)
		c, ssp := b.start(ctx, s)
		stageCtx[st.ID] = c
		stages = append(stages, open{ssp, s.end})
	}
	parentOf := func(stageID string) context.Context {
		if c, ok := stageCtx[stageID]; ok {
			return c
		}
		return ctx
	}
	reasons := finishReasons(t)
	for i, mc := range t.ModelCalls {
		s := b.chatSpan(i, mc, reasons[i])
		_, csp := b.start(parentOf(mc.StageID), s)
		csp.End(trace.WithTimestamp(s.end))
	}
	for i, tc := range t.ToolCalls {
		s := b.toolSpan(i, tc)
		_, tsp := b.start(parentOf(tc.StageID), s)
		tsp.End(trace.WithTimestamp(s.end))
	}
	for _, o := range stages {
		o.sp.End(trace.WithTimestamp(o.end))
	}
	sp.End(trace.WithTimestamp(root.end))
}

// turnEnd is when the turn ended: when it completed, or for one that
// never did (still running, or interrupted), when its last call ended.
func (b *builder) turnEnd() time.Time {
	if b.t.CompletedAt != nil {
		return *b.t.CompletedAt
	}
	end := b.t.StartedAt
	for _, mc := range b.t.ModelCalls {
		end = later(end, mc.StartedAt.Add(ms(mc.DurationMS)))
	}
	for _, tc := range b.t.ToolCalls {
		end = later(end, tc.StartedAt.Add(ms(tc.DurationMS)))
	}
	return end
}

func (b *builder) rootSpan() span {
	t, sess := b.t, b.sess
	name := firstOf(t.Workflow, "chat")
	attrs := []attribute.KeyValue{
		semconv.GenAIOperationNameInvokeAgent,
		semconv.GenAIAgentName(name),
		semconv.GenAIConversationID(sess.ID),
		AttrTurnID.String(t.ID), AttrTurnSeq.Int(t.Seq), AttrTurnState.String(string(t.State)),
	}
	if t.Model != "" {
		attrs = append(attrs, semconv.GenAIRequestModel(t.Model))
	}
	if p := firstOf(sess.Provider, firstProvider(t)); p != "" {
		attrs = append(attrs, semconv.GenAIProviderNameKey.String(p))
	}
	if t.Outcome != "" {
		attrs = append(attrs, AttrTurnOutcome.String(string(t.Outcome)))
	}
	if k := terminationKind(t.Termination); k != "" {
		attrs = append(attrs, AttrTermination.String(k))
	}
	if t.ParentTurnID != "" {
		attrs = append(attrs, AttrParentTurn.String(t.ParentTurnID))
	}
	var in, out, cached, reasoning int
	var cost float64
	var priced bool
	for _, mc := range t.ModelCalls {
		in, out, cached, reasoning = in+mc.InputTokens, out+mc.OutputTokens, cached+mc.CachedTokens, reasoning+mc.ReasoningTokens
		if mc.CostUSD != nil {
			cost, priced = cost+*mc.CostUSD, true
		}
	}
	attrs = append(attrs, usage(in, out, cached, reasoning)...)
	if priced {
		attrs = append(attrs, AttrCostUSD.Float64(cost))
	}
	s := span{step: "", name: "invoke_agent " + name, kind: trace.SpanKindInternal, start: t.StartedAt, end: b.turnEnd()}
	switch t.State {
	case export.StateFailed:
		s.err, s.errType = firstOf(turnError(t), "The turn failed."), "turn_failed"
	case export.StateCancelled:
		attrs = append(attrs, AttrStopped.Bool(true))
	case export.StateInterrupted:
		attrs = append(attrs, AttrInterrupted.Bool(true))
	}
	if b.opts.Content {
		attrs = append(attrs, semconv.GenAIInputMessagesKey.String(messagesJSON([]llm.Message{{Role: llm.RoleUser, Content: t.UserMessage}})))
		if t.FinalText != "" {
			attrs = append(attrs, semconv.GenAIOutputMessagesKey.String(outputJSON(llm.Message{Role: llm.RoleAssistant, Content: t.FinalText}, "stop")))
		}
	}
	s.attrs = attrs
	return s
}

func (b *builder) stageSpan(i int, st export.Stage) span {
	var d turn.StageDiagnostics
	_ = json.Unmarshal(st.Diagnostics, &d)
	start, end := d.StartedAt.Time, d.CompletedAt.Time
	if start.IsZero() || end.IsZero() {
		start, end = b.callsSpan(st.ID)
	}
	attrs := []attribute.KeyValue{AttrStageName.String(st.Name), AttrStageAgent.String(st.Agent)}
	if st.Phase != "" {
		attrs = append(attrs, AttrStagePhase.String(st.Phase))
	}
	if st.Outcome != "" {
		attrs = append(attrs, AttrStageOutcome.String(string(st.Outcome)))
	}
	if k := terminationKind(st.Termination); k != "" {
		attrs = append(attrs, AttrStageTerminates.String(k))
	}
	s := span{step: "stage" + strconv.Itoa(i+1), name: "stage " + firstOf(st.Name, st.Agent, "stage"), kind: trace.SpanKindInternal, start: start, end: end, attrs: attrs}
	if st.Outcome == turn.OutcomeFailed {
		var term turn.Termination
		_ = json.Unmarshal(st.Termination, &term)
		s.err, s.errType = firstOf(term.Error, "The stage failed."), "stage_failed"
	}
	return s
}

// callsSpan is from the first call of a stage to the end of its last;
// the turn's times for a stage with none.
func (b *builder) callsSpan(stageID string) (start, end time.Time) {
	for _, mc := range b.t.ModelCalls {
		if mc.StageID == stageID {
			start, end = earlier(start, mc.StartedAt), later(end, mc.StartedAt.Add(ms(mc.DurationMS)))
		}
	}
	for _, tc := range b.t.ToolCalls {
		if tc.StageID == stageID {
			start, end = earlier(start, tc.StartedAt), later(end, tc.StartedAt.Add(ms(tc.DurationMS)))
		}
	}
	if start.IsZero() {
		return b.t.StartedAt, b.turnEnd()
	}
	return start, end
}

func (b *builder) chatSpan(i int, mc export.ModelCall, reason string) span {
	model := firstOf(mc.Model, b.t.Model)
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameChat, semconv.GenAIRequestModel(model)}
	if p := firstOf(mc.Provider, b.sess.Provider); p != "" {
		attrs = append(attrs, semconv.GenAIProviderNameKey.String(p))
	}
	attrs = append(attrs, usage(mc.InputTokens, mc.OutputTokens, mc.CachedTokens, mc.ReasoningTokens)...)
	if reason != "" {
		attrs = append(attrs, semconv.GenAIResponseFinishReasons(reason))
	}
	if mc.TTFTMS > 0 {
		attrs = append(attrs, semconv.GenAIResponseTimeToFirstChunk(float64(mc.TTFTMS)/1000))
	}
	if mc.CostUSD != nil {
		attrs = append(attrs, AttrCostUSD.Float64(*mc.CostUSD))
	}
	if mc.Estimated {
		attrs = append(attrs, AttrEstimated.Bool(true))
	}
	if mc.Capture != "" {
		attrs = append(attrs, AttrCapture.String(mc.Capture))
	}
	if b.opts.Content {
		if in, out, ok := callMessages(b.t, i); ok {
			attrs = append(attrs, semconv.GenAIInputMessagesKey.String(messagesJSON(in)), semconv.GenAIOutputMessagesKey.String(outputJSON(out, reason)))
		}
	}
	s := span{step: "call" + strconv.Itoa(i+1), name: "chat " + model, kind: trace.SpanKindClient, start: mc.StartedAt, end: mc.StartedAt.Add(ms(mc.DurationMS)), attrs: attrs}
	if !mc.OK {
		s.err, s.errType = firstOf(mc.Error, "The model call failed."), "model_call_failed"
	}
	return s
}

func (b *builder) toolSpan(i int, tc export.ToolCall) span {
	attrs := []attribute.KeyValue{semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(tc.Name), semconv.GenAIToolCallID(tc.CallID),
		semconv.GenAIToolTypeKey.String("function"), AttrResultSize.Int(tc.ResultSize)}
	if b.opts.Content {
		attrs = append(attrs, semconv.GenAIToolCallArgumentsKey.String(tc.Arguments))
		if r, ok := toolResult(b.t, tc.CallID); ok {
			attrs = append(attrs, semconv.GenAIToolCallResultKey.String(r))
		}
	}
	s := span{step: "tool" + strconv.Itoa(i+1), name: "execute_tool " + tc.Name, kind: trace.SpanKindInternal, start: tc.StartedAt, end: tc.StartedAt.Add(ms(tc.DurationMS)), attrs: attrs}
	if !tc.OK {
		s.err, s.errType = firstOf(tc.Error, "The tool call failed."), "tool_call_failed"
	}
	return s
}

// usage is the token counts the conventions name: cached input tokens
// as gen_ai.usage.cache_read.input_tokens, reasoning tokens (part of the
// output) as gen_ai.usage.reasoning.output_tokens.
func usage(in, out, cached, reasoning int) []attribute.KeyValue {
	attrs := []attribute.KeyValue{semconv.GenAIUsageInputTokens(in), semconv.GenAIUsageOutputTokens(out)}
	if cached > 0 {
		attrs = append(attrs, semconv.GenAIUsageCacheReadInputTokens(cached))
	}
	if reasoning > 0 {
		attrs = append(attrs, semconv.GenAIUsageReasoningOutputTokens(reasoning))
	}
	return attrs
}

func terminationKind(raw json.RawMessage) string {
	var term turn.Termination
	_ = json.Unmarshal(raw, &term)
	return string(term.Kind)
}

func turnError(t *export.Turn) string {
	var res struct {
		Error string `json:"error"`
	}
	_ = json.Unmarshal(t.Result, &res)
	if res.Error != "" {
		return res.Error
	}
	var term turn.Termination
	_ = json.Unmarshal(t.Termination, &term)
	return term.Error
}

func firstProvider(t *export.Turn) string {
	for _, mc := range t.ModelCalls {
		if mc.Provider != "" {
			return mc.Provider
		}
	}
	return ""
}

func ms(n int64) time.Duration { return time.Duration(n) * time.Millisecond }

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

func earlier(a, b time.Time) time.Time {
	if a.IsZero() || b.Before(a) {
		return b
	}
	return a
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// nonEmpty is attrs without the empty ones (a string "", an empty list):
// an attribute that is absent says "unknown" better than one set to
// nothing (the turn's span has no step id, a call may have no id).
func nonEmpty(attrs []attribute.KeyValue) []attribute.KeyValue {
	out := attrs[:0:0]
	for _, a := range attrs {
		switch a.Value.Type() {
		case attribute.STRING:
			if a.Value.AsString() == "" {
				continue
			}
		case attribute.STRINGSLICE:
			if len(a.Value.AsStringSlice()) == 0 {
				continue
			}
		case attribute.EMPTY:
			continue
		}
		out = append(out, a)
	}
	return out
}
