import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AgentEvent, EventBase, EventType, Result, StageResult, ToolCallData, TokenData, TurnDetail } from '../types';
import { EventTypeValues } from '../generated';
import { applyEvent, applyEvents, folds, fromDetail, stateOfResult, unrendered } from './reducer';
import { answerText, emptyTurn, textOf, thinkingMs, type NoteBlock, type ThinkingBlock, type ToolBlock } from './turnview';

let seq = 0;
function ev(type: EventType, data: unknown = {}, over: Partial<AgentEvent> = {}): AgentEvent {
  seq++;
  // A test gives only the data it reads: cast, as the backend is what types real events.
  return {
    id: `e${seq}`,
    session_id: 's1',
    turn_id: 't1',
    stage_id: '',
    seq,
    parent_id: '',
    at: `2025-01-01T00:00:0${seq % 10}.000Z`,
    type,
    phase: 'thinking',
    checkpoint: false,
    data,
    ...over,
  } as AgentEvent;
}

function run(...evs: AgentEvent[]) {
  return applyEvents(emptyTurn('t1'), evs);
}

const result = (over: Partial<Result> = {}): Result => ({
  messages: null,
  steps_used: 1,
  tool_calls_used: 0,
  cancelled: false,
  budget_exhausted: false,
  plan_steps: null,
  plan_incomplete_reason: '',
  error: '',
  final_text: 'done',
  ok: true,
  outcome: 'succeeded',
  termination: { kind: 'natural_completion' },
  usage: { input_tokens: 10, output_tokens: 5, cached_input_tokens: 0, reasoning_tokens: 0, total_tokens: 15, estimated: false },
  started_at: '2025-01-01T00:00:00.000Z',
  completed_at: '2025-01-01T00:00:02.000Z',
  duration_ms: 2000,
  model_calls: [],
  tool_calls: [],
  ...over,
});

describe('applyEvent', () => {
  it('appends tokens of one stage to one text block and starts a new block after anything else', () => {
    const v = run(
      ev('token', { text: 'Hel' }),
      ev('token', { text: 'lo' }),
      ev('tool_call', { call_id: 'c1', name: 'ls', args: {} }),
      ev('token', { text: 'After' }),
    );
    expect(v.blocks.map((b) => b.kind)).toEqual(['text', 'tool', 'text']);
    expect(v.blocks[0]).toMatchObject({ kind: 'text', text: 'Hello' });
    expect(v.blocks[2]).toMatchObject({ kind: 'text', text: 'After' });
  });

  it('starts a new text block when the stage changes', () => {
    const v = run(ev('token', { text: 'a' }, { stage_id: 's1' }), ev('token', { text: 'b' }, { stage_id: 's2' }));
    expect(v.blocks).toHaveLength(2);
  });

  it('tracks a model call in flight with think_start and think_end', () => {
    expect(run(ev('think_start')).thinking).toBe(true);
    expect(run(ev('think_start'), ev('think_end', { prompt_tokens: 1, completion_tokens: 2 })).thinking).toBe(false);
  });

  it('fills a tool card from its result, and marks errors', () => {
    const call = ev('tool_call', { call_id: 'c1', name: 'read', args: { path: 'a' } });
    const v = run(call, ev('tool_result', { call_id: 'c1', name: 'read', output: 'hi', duration_ms: 12 }, { parent_id: call.id }));
    expect(v.blocks[0]).toMatchObject({ kind: 'tool', status: 'ok', output: 'hi', durationMs: 12, args: { path: 'a' } });
    const w = run(
      ev('tool_call', { call_id: 'c2', name: 'write', args: {} }),
      ev('tool_error', { call_id: 'c2', name: 'write', error: 'denied', duration_ms: 1 }),
    );
    expect(w.blocks[0]).toMatchObject({ status: 'error', error: 'denied' });
  });

  it('pairs a result with its call by parent_id when a model reuses call ids', () => {
    // Local models often number calls per reply: two steps both call "call_0".
    const first = ev('tool_call', { call_id: 'call_0', name: 'list', args: {} });
    const second = ev('tool_call', { call_id: 'call_0', name: 'read', args: {} });
    const v = run(
      first,
      second,
      ev('tool_result', { call_id: 'call_0', name: 'list', output: 'a.txt', duration_ms: 1 }, { parent_id: first.id }),
      ev('guard_triggered', { guard: 'approval', blocked: false, reason: 'ok' }, { parent_id: first.id }),
    );
    expect(v.blocks).toHaveLength(2);
    expect(v.blocks[0]).toMatchObject({ name: 'list', status: 'ok', output: 'a.txt' });
    expect((v.blocks[0] as ToolBlock).guards).toHaveLength(1);
    expect(v.blocks[1]).toMatchObject({ name: 'read', status: 'running' });
  });

  it('adds a tool card for a result without a call (refused before it ran)', () => {
    const v = run(ev('tool_error', { call_id: 'c9', name: 'rm', error: 'blocked', duration_ms: 0 }));
    expect(v.blocks[0]).toMatchObject({ kind: 'tool', name: 'rm', status: 'error' });
  });

  it('attaches a guard to its tool call, or shows it inline', () => {
    const call = ev('tool_call', { call_id: 'c1', name: 'rm', args: {} });
    const v = run(call, ev('guard_triggered', { guard: 'workspace', blocked: true, reason: 'outside' }, { parent_id: call.id }));
    expect((v.blocks[0] as ToolBlock).guards).toEqual([{ guard: 'workspace', blocked: true, reason: 'outside' }]);
    const w = run(ev('guard_triggered', { guard: 'budget', blocked: false, reason: 'close' }));
    expect((w.blocks[0] as NoteBlock).note).toMatchObject({ type: 'guard' });
  });

  it('keeps the plan as a live checklist', () => {
    let v = run(
      ev('plan_generated', {
        steps: [
          { title: 'A', status: 'pending' },
          { title: 'B', status: '' },
        ],
      }),
    );
    expect(v.blocks.map((b) => b.kind)).toEqual(['plan']);
    expect(v.plan.map((s) => s.status)).toEqual(['pending', 'pending']);
    v = applyEvents(v, [
      ev('step_start', { step_index: 0, description: 'A' }),
      ev('step_end', { step_index: 0, success: true }),
      ev('step_start', { step_index: 1, description: 'B' }),
    ]);
    expect(v.plan.map((s) => s.status)).toEqual(['done', 'running']);
    v = applyEvent(v, ev('step_end', { step_index: 1, success: false }));
    expect(v.plan[1]!.status).toBe('error');
    expect(v.blocks.filter((b) => b.kind === 'plan')).toHaveLength(1);
  });

  it('creates plan steps from step events when no plan came first', () => {
    const v = run(ev('step_start', { step_index: 1, description: 'Second' }));
    expect(v.plan).toHaveLength(2);
    expect(v.plan[1]).toEqual({ title: 'Second', status: 'running' });
  });

  it('shows memory, compression, handoffs, reflections, critiques and refining inline', () => {
    const v = run(
      ev('memory_recalled', { count: 3 }),
      ev('context_compressed', { before_count: 10, after_count: 4, before_tokens: 900, after_tokens: 300 }),
      ev('handoff_start', { from: 'a', to: 'b' }),
      ev('handoff_end', { to: 'b' }),
      ev('reflection_start', { iteration: 1 }),
      ev('reflection_end', { iteration: 1, score: 0.8, passed: true }),
      ev('critique_generated', { score: 0.4, passed: false, feedback: 'More detail' }),
      ev('refining', { iteration: 2 }),
    );
    const notes = v.blocks.map((b) => (b as NoteBlock).note);
    expect(notes.map((n) => n.type)).toEqual(['memory', 'compressed', 'handoff', 'reflection', 'critique', 'refining']);
    expect(notes[2]).toMatchObject({ from: 'a', to: 'b', done: true });
    expect(notes[3]).toMatchObject({ iteration: 1, score: 0.8, passed: true, done: true });
    expect(notes[4]).toMatchObject({ data: { feedback: 'More detail', passed: false } });
  });

  it('shows where a replay diverged, and a hand-off whose target failed', () => {
    const v = run(
      ev('handoff_start', { from: 'triage', to: 'poet' }),
      ev('handoff_end', { to: 'poet', outcome: 'failed', target_stage_id: 's2' }),
      ev('replay_divergence', { call: 2, kind: 'request', message: "call 2's request differs", diffs: ['message 4 (tool) text differs'] }),
    );
    const notes = v.blocks.map((b) => (b as NoteBlock).note);
    expect(notes.map((n) => n.type)).toEqual(['handoff', 'divergence']);
    expect(notes[0]).toMatchObject({ to: 'poet', done: true, outcome: 'failed' });
    expect(notes[1]).toMatchObject({ data: { call: 2, kind: 'request', diffs: ['message 4 (tool) text differs'] } });
  });

  it('adds charts with their title and spec', () => {
    const v = run(ev('chart', { title: 'Sales', spec: { mark: 'bar' } }));
    expect(v.blocks[0]).toMatchObject({ kind: 'chart', title: 'Sales', spec: { mark: 'bar' } });
  });

  it('marks stages and fills them with their result', () => {
    const sr = { id: 'st1', name: 'draft', agent: 'writer', phase: 'execute', outcome: 'succeeded' } as StageResult;
    const start = ev('stage_start', { stage_id: 'st1', stage: 'draft', phase: 'execute', agent: 'writer' }, { stage_id: 'st1' });
    let v = run(start);
    expect(v.stageId).toBe('st1');
    expect(v.blocks[0]).toMatchObject({ kind: 'stage', name: 'draft', agent: 'writer' });
    v = applyEvent(v, ev('stage_end', sr, { stage_id: 'st1' }));
    expect(v.blocks[0]).toMatchObject({ kind: 'stage', result: { outcome: 'succeeded' } });
    expect(v.stageId).toBe('');
  });

  it('shows an error card and fails the turn', () => {
    const v = run(ev('error', { source: 'llm', message: 'Cannot reach the model.' }));
    expect(v.state).toBe('failed');
    expect(v.blocks[0]).toMatchObject({ kind: 'error', data: { source: 'llm', message: 'Cannot reach the model.' } });
  });

  it('keeps the final answer, and shows it when nothing streamed', () => {
    const streamed = run(ev('token', { text: 'Hi' }), ev('final_answer', { text: 'Hi' }));
    expect(streamed.blocks).toHaveLength(1);
    expect(streamed.finalText).toBe('Hi');
    const replayed = run(ev('final_answer', { text: 'Cached' }));
    expect(replayed.blocks[0]).toMatchObject({ kind: 'text', text: 'Cached' });
  });

  it('marks a stopped turn and keeps the partial answer', () => {
    const v = run(ev('token', { text: 'Part' }), ev('cancelled', { partial_text: 'Part' }));
    expect(v.state).toBe('cancelled');
    expect(v.finalText).toBe('Part');
    expect(v.blocks[0]).toMatchObject({ text: 'Part' });
  });

  it('takes the result from turn_completed and ends running tools', () => {
    const v = run(
      ev('tool_call', { call_id: 'c1', name: 'slow', args: {} }),
      ev('turn_completed', result({ cancelled: true, ok: false, outcome: 'cancelled', termination: { kind: 'cancelled' } })),
    );
    expect(v.state).toBe('cancelled');
    expect(v.result?.outcome).toBe('cancelled');
    expect(v.termination?.kind).toBe('cancelled');
    expect(v.blocks[0]).toMatchObject({ status: 'error' });
    expect(v.completedAt).toBe('2025-01-01T00:00:02.000Z');
  });

  it('ignores events it already applied', () => {
    const a = ev('token', { text: 'x' });
    const v = run(a);
    expect(applyEvent(v, a)).toBe(v);
  });

  it('never changes the view it is given', () => {
    const v = run(ev('token', { text: 'a' }));
    const frozen = JSON.stringify(v);
    applyEvent(v, ev('token', { text: 'b' }));
    expect(JSON.stringify(v)).toBe(frozen);
  });
});

// A model's reasoning and a call that waits for its model (issue 19).
describe('thinking and waiting', () => {
  /** An event at a given second of the turn (and millisecond). */
  const at = (sec: number, ms = 0) => new Date(Date.UTC(2025, 0, 1, 0, 0, sec, ms)).toISOString();
  const think = (text: string, sec: number, ms = 0, stage = '') => ev('reasoning', { text }, { at: at(sec, ms), stage_id: stage });
  const thinking = (v: { blocks: readonly { kind: string }[] }) => v.blocks.filter((b): b is ThinkingBlock => b.kind === 'thinking');

  /** A turn of two calls: think, call a tool, think again, answer. */
  const twoCalls = () => [
    ev('think_start', {}, { at: at(0) }),
    think('First, ', 1),
    think('list the files.', 3),
    ev('tool_call', { call_id: 'c1', name: 'ls', args: {} }, { at: at(4) }),
    ev('think_end', { prompt_tokens: 10, completion_tokens: 5 }, { at: at(4) }),
    ev('tool_result', { call_id: 'c1', name: 'ls', output: 'a.txt', duration_ms: 1 }, { at: at(5) }),
    ev('think_start', {}, { at: at(5) }),
    think('One file: ', 6),
    think('say so.', 18, 400),
    ev('token', { text: 'There is ' }, { at: at(19) }),
    ev('token', { text: 'one file.' }, { at: at(19) }),
    ev('think_end', { prompt_tokens: 20, completion_tokens: 8 }, { at: at(20) }),
    ev('final_answer', { text: 'There is one file.' }, { at: at(20) }),
  ];

  it('folds the reasoning of each call into its own block, where it streamed, apart from the answer', () => {
    const v = run(...twoCalls());
    expect(v.blocks.map((b) => b.kind)).toEqual(['thinking', 'tool', 'thinking', 'text']);
    expect(thinking(v).map((b) => b.text)).toEqual(['First, list the files.', 'One file: say so.']);
    expect(thinking(v).every((b) => b.done)).toBe(true);
    expect(v.blocks[3]).toMatchObject({ kind: 'text', text: 'There is one file.' });
    // Copy, the compare view and a section's Copy read text blocks only.
    expect(answerText(v)).toBe('There is one file.');
    expect(textOf(v.blocks)).toBe('There is one file.');
  });

  it('keeps the stage id of the call that thought', () => {
    const v = run(
      ev('stage_start', { stage_id: 'w1', stage: 'write', agent: 'a', phase: 'stage' }, { stage_id: 'w1' }),
      think('Hmm.', 1, 0, 'w1'),
      think('Other stage.', 1, 0, 'c1'),
    );
    expect(thinking(v).map((b) => [b.stageId, b.text])).toEqual([
      ['w1', 'Hmm.'],
      ['c1', 'Other stage.'],
    ]);
  });

  it('is live while the reasoning streams', () => {
    const v = run(ev('think_start'), think('Let me ', 1), think('see.', 2));
    expect(thinking(v)).toEqual([expect.objectContaining({ text: 'Let me see.', done: false })]);
  });

  it.each([
    ['its first answer token', ev('token', { text: 'Hi' })],
    ['a tool call', ev('tool_call', { call_id: 'c1', name: 'ls', args: {} })],
    ['the end of the call', ev('think_end', { prompt_tokens: 1, completion_tokens: 1 })],
    ['the turn stopped', ev('cancelled', { partial_text: '' })],
    ['the turn failed', ev('error', { source: 'llm', message: 'gone' })],
    ['the turn completed', ev('turn_completed', result())],
  ])('collapses once the call moves on: %s', (_, next) => {
    const live = run(ev('think_start'), think('Hmm.', 1));
    const v = applyEvent(live, { ...next, seq: live.lastSeq + 1 });
    expect(thinking(v)[0]!.done).toBe(true);
    expect(thinking(live)[0]!.done).toBe(false);
  });

  it('does not collapse on what another stage or an empty token does', () => {
    const v = run(think('Hmm.', 1, 0, 'a'), ev('token', { text: '' }, { stage_id: 'a' }), ev('token', { text: 'x' }, { stage_id: 'b' }));
    expect(thinking(v)[0]!.done).toBe(false);
  });

  it('lasts from the first to the last piece of reasoning', () => {
    const [first, second] = thinking(run(...twoCalls()));
    expect(thinkingMs(first!)).toBe(2000);
    expect(thinkingMs(second!)).toBe(12_400);
    expect(thinkingMs({ firstAt: '', lastAt: '' })).toBe(0);
  });

  it('counts the reasoning in the live token estimate', () => {
    expect(run(ev('think_start'), think('12345678', 1)).live.streamingChars).toBe(8);
  });

  it('keeps reasoning out of the partial answer of a stopped turn', () => {
    const v = run(ev('think_start'), think('secret plan', 1), ev('token', { text: 'Part' }), ev('cancelled', { partial_text: 'Part' }));
    expect(v.finalText).toBe('Part');
    expect(answerText(v)).toBe('Part');
  });

  it('rebuilds the same view from the stored events', () => {
    seq = 0;
    const evs = twoCalls();
    const live = run(...evs);
    const stored = fromDetail({ ...detailOf(), events: evs, last_seq: evs.length });
    expect(stored.blocks).toEqual(live.blocks);
    expect(thinking(stored).map(thinkingMs)).toEqual([2000, 12_400]);
  });

  it('collapses the thinking of a turn whose process died while it thought', () => {
    seq = 0;
    const v = fromDetail({
      ...detailOf(),
      state: 'interrupted',
      result: null,
      events: [ev('think_start'), think('half a tho', 1)],
      last_seq: 2,
    });
    expect(thinking(v)[0]).toMatchObject({ text: 'half a tho', done: true });
  });

  it('shows the reasoning of a stored message when a turn has no events, without a duration', () => {
    const v = fromDetail({
      ...detailOf(),
      final_text: 'A',
      result: result({ final_text: 'A' }),
      messages: [
        { role: 'user', content: 'q' },
        { role: 'assistant', content: 'A', reasoning: 'because' },
      ],
    });
    expect(v.blocks.map((b) => b.kind)).toEqual(['thinking', 'text']);
    expect(v.blocks[0]).toMatchObject({ text: 'because', done: true, firstAt: '' });
    expect(textOf(v.blocks)).toBe('A');
    expect(answerText(v)).toBe('A');
  });

  it('waits from the start of the call until the call receives anything', () => {
    const start = ev('think_start', {}, { at: at(1) });
    const waiting = run(start, ev('model_waiting', { waited_ms: 3000 }, { at: at(4, 20) }));
    expect(waiting.waiting).toEqual({ stageId: '', since: at(1), waitedMs: 3000 });
    expect(applyEvent(waiting, ev('token', { text: 'Hi' })).waiting).toBeNull();
    expect(applyEvent(waiting, think('Hmm', 5)).waiting).toBeNull();
    expect(applyEvent(waiting, ev('think_end', { prompt_tokens: 1, completion_tokens: 1 })).waiting).toBeNull();
    expect(applyEvent(waiting, ev('cancelled', { partial_text: '' })).waiting).toBeNull();
    expect(applyEvent(waiting, ev('error', { source: 'llm', message: 'x' }, { stage_id: 'other' })).waiting).toBeNull();
  });

  it('keeps each retry as a note where it happened, and a retry ends the wait', () => {
    const retry = { attempt: 2, max_attempts: 4, status: 429, kind: 'rate_limited', message: 'slow down', wait_ms: 3000 };
    const waiting = run(ev('think_start', {}, { at: at(1) }), ev('model_waiting', { waited_ms: 3000 }, { at: at(4) }));
    const v = applyEvents(waiting, [ev('model_retry', retry), ev('model_retry', { ...retry, attempt: 3 }), ev('token', { text: 'Hi' })]);
    expect(v.waiting).toBeNull();
    const notes = v.blocks.filter((b) => b.kind === 'note').map((b) => (b as NoteBlock).note);
    expect(notes).toEqual([
      { type: 'retry', data: retry },
      { type: 'retry', data: { ...retry, attempt: 3 } },
    ]);
    expect(textOf(v.blocks)).toBe('Hi');
  });

  it('counts the wait back from the event when the call start is unknown', () => {
    const v = run(ev('model_waiting', { waited_ms: 5000 }, { at: at(10) }));
    expect(v.waiting?.since).toBe(at(5));
  });

  it('forgets the wait of a turn that ended while it waited', () => {
    seq = 0;
    const v = fromDetail({
      ...detailOf(),
      state: 'interrupted',
      result: null,
      events: [ev('think_start'), ev('model_waiting', { waited_ms: 3000 })],
      last_seq: 2,
    });
    expect(v.waiting).toBeNull();
  });
});

function detailOf(): TurnDetail {
  return {
    id: 't1',
    parent_turn_id: '',
    continues: false,
    session_id: 's1',
    seq: 1,
    user_message: 'q',
    state: 'completed',
    workflow: 'chat',
    model: 'm',
    started_at: '2025-01-01T00:00:00Z',
    completed_at: '2025-01-01T00:00:20Z',
    final_text: 'Answer',
    outcome: 'succeeded',
    termination: { kind: 'natural_completion' },
    messages: [],
    stages: [],
    plan: [],
    charts: [],
    result: result(),
    last_seq: 0,
  };
}

describe('stateOfResult', () => {
  it.each([
    [{ cancelled: true, ok: false }, 'cancelled'],
    [{ cancelled: false, ok: false }, 'failed'],
    [{ cancelled: false, ok: true }, 'completed'],
  ] as const)('%o → %s', (r, want) => expect(stateOfResult(r)).toBe(want));
});

describe('fromDetail', () => {
  const base: TurnDetail = {
    id: 't1',
    parent_turn_id: '',
    continues: false,
    session_id: 's1',
    seq: 3,
    user_message: 'hi',
    state: 'completed',
    workflow: 'chat',
    model: 'm',
    started_at: '2025-01-01T00:00:00Z',
    completed_at: '2025-01-01T00:00:02Z',
    final_text: 'Answer',
    outcome: 'succeeded',
    termination: { kind: 'natural_completion' },
    messages: [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'Let me look.', tool_calls: [{ id: 'c1', name: 'ls', arguments: '{"dir":"."}' }] },
      { role: 'tool', content: 'a.txt', tool_call_id: 'c1' },
      { role: 'assistant', content: 'Answer' },
    ],
    stages: [],
    plan: [{ title: 'Look', status: 'done' }],
    charts: [{ event_id: 'ch1', seq: 4, title: 'C', spec: {} }],
    result: result(),
    last_seq: 9,
  };

  it('rebuilds a turn without events from its messages, plan and charts', () => {
    const v = fromDetail(base);
    expect(v.blocks.map((b) => b.kind)).toEqual(['plan', 'text', 'tool', 'text', 'chart']);
    expect(v.blocks[2]).toMatchObject({ name: 'ls', args: { dir: '.' }, output: 'a.txt' });
    expect(v.lastSeq).toBe(9);
    expect(v.state).toBe('completed');
    expect(v.userMessage).toBe('hi');
  });

  it('replays events when it has them', () => {
    seq = 0;
    const v = fromDetail({ ...base, events: [ev('token', { text: 'Answer' }), ev('final_answer', { text: 'Answer' })], last_seq: 2 });
    expect(v.blocks).toHaveLength(1);
    expect(v.lastSeq).toBe(2);
  });

  it('keeps the stored state of an interrupted turn', () => {
    seq = 0;
    const v = fromDetail({ ...base, state: 'interrupted', events: [ev('think_start'), ev('token', { text: 'par' })], result: null });
    expect(v.state).toBe('interrupted');
    expect(v.thinking).toBe(false);
  });

  it('shows the error of a failed turn without events', () => {
    const v = fromDetail({
      ...base,
      state: 'failed',
      messages: [],
      charts: [],
      plan: [],
      result: result({ ok: false, error: 'No model', error_source: 'llm' }),
    });
    expect(v.blocks).toEqual([{ kind: 'error', id: 't1:error', stageId: '', data: { source: 'llm', message: 'No model' } }]);
  });
});

// The event types come from Go (backend/turn, generated into
// generated.ts): a type added there does not compile in the reducer (its
// switch covers every type) until it has a case, folding it or, listed in
// `unrendered` with why, leaving it out.
describe('the reducer and the Go event types', () => {
  it.each(EventTypeValues.filter((t) => !(t in unrendered)))('folds %s', (type) => {
    expect(folds(type)).toBe(true);
  });

  it('leaves out only event types that exist, each with a reason, and folds none of them', () => {
    for (const [type, why] of Object.entries(unrendered)) {
      expect(EventTypeValues).toContain(type);
      expect(why.length).toBeGreaterThan(20);
      expect(folds(type as keyof typeof unrendered)).toBe(false);
    }
  });
});

// The event is a union discriminated by its type (generated from Go, where
// each payload type says its event type): a payload of the wrong shape for
// its type does not compile, and narrowing by type gives the payload's
// type with no cast. `npm run check` checks the @ts-expect-error lines.
describe('the event union', () => {
  const base: EventBase = {
    id: 'e1',
    session_id: 's1',
    turn_id: 't1',
    stage_id: '',
    seq: 1,
    parent_id: '',
    at: '2025-01-01T00:00:00.000Z',
    phase: 'thinking',
    checkpoint: false,
  };

  it('takes each type with its own payload only', () => {
    const ok: AgentEvent[] = [
      { ...base, type: 'token', data: { text: 'hi' } },
      { ...base, type: 'tool_call', data: { call_id: 'c1', name: 'read_file', args: {} } },
      { ...base, type: 'think_start', data: {} },
    ];
    // @ts-expect-error a token's data is TokenData: a tool call's does not fit
    const wrongShape: AgentEvent = { ...base, type: 'token', data: { call_id: 'c1', name: 'read_file', args: {} } };
    // @ts-expect-error a tool call's data needs its call_id and name
    const missing: AgentEvent = { ...base, type: 'tool_call', data: { text: 'hi' } };
    // @ts-expect-error no such event type
    const unknownType: AgentEvent = { ...base, type: 'tokens', data: { text: 'hi' } };
    expect([...ok, wrongShape, missing, unknownType]).toHaveLength(6);
  });

  it('narrows the payload by the type', () => {
    const names: string[] = [];
    const read = (ev: AgentEvent) => {
      if (ev.type === 'tool_call') {
        expectTypeOf(ev.data).toEqualTypeOf<ToolCallData>();
        names.push(ev.data.name);
      }
      if (ev.type === 'token') expectTypeOf(ev.data).toEqualTypeOf<TokenData>();
      if (ev.type === 'stage_end') expectTypeOf(ev.data).toEqualTypeOf<StageResult>();
    };
    read({ ...base, type: 'tool_call', data: { call_id: 'c1', name: 'read_file', args: {} } });
    expect(names).toEqual(['read_file']);
  });
});
