import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, Delivered, Turn, TurnDetail } from '../types';
import { formatSeconds } from '../format';
import { mergeTokens, TurnStore, type TurnsBackend } from './turns.svelte';
import { thinkingMs } from './turnview';

function ev(seq: number, type: AgentEvent['type'] = 'token', data: unknown = { text: `[${seq}]` }, turn = 't1'): AgentEvent {
  // A test gives only the data it reads: cast, as the backend is what types real events.
  return {
    id: `${turn}-e${seq}`,
    session_id: 's1',
    turn_id: turn,
    stage_id: '',
    seq,
    parent_id: '',
    at: '2025-01-01T00:00:00.000Z',
    type,
    phase: 'thinking',
    checkpoint: false,
    data,
  } as AgentEvent;
}

function del(e: AgentEvent, first = e.seq): Delivered {
  return { ...e, first_seq: first };
}

/** A coalesced token run covering first..last. */
function run(first: number, last: number, turn = 't1'): Delivered {
  let text = '';
  for (let s = first; s <= last; s++) text += `[${s}]`;
  return { ...ev(last, 'token', { text }, turn), first_seq: first };
}

/** A fake backend that knows the whole event log of each turn. */
function fakeBackend(log: Record<string, AgentEvent[]>, details: Record<string, Partial<TurnDetail>> = {}) {
  const eventsAfter = vi.fn(async (turnId: string, after: number) => (log[turnId] ?? []).filter((e) => e.seq > after));
  const getTurn = vi.fn(async (turnId: string, withEvents: boolean) => {
    const d = details[turnId] ?? {};
    const upTo = d.last_seq ?? 0;
    const events = (log[turnId] ?? []).filter((e) => e.seq <= upTo);
    return {
      id: turnId,
      session_id: 's1',
      seq: 1,
      user_message: 'q',
      state: 'running',
      workflow: 'chat',
      model: 'm',
      started_at: '',
      completed_at: null,
      final_text: '',
      outcome: '',
      termination: { kind: '' },
      messages: [],
      stages: [],
      plan: [],
      charts: [],
      result: null,
      ...d,
      events: withEvents ? events : undefined,
    } as TurnDetail;
  });
  return { eventsAfter, getTurn } satisfies TurnsBackend;
}

function textOf(p: TurnStore, turn = 't1') {
  return p
    .view(turn)
    .blocks.map((b) => (b.kind === 'text' ? b.text : `<${b.kind}>`))
    .join('');
}

/** Animation frames the tests run by hand: raf queues, frame runs what is queued. */
let frames: Array<() => void> = [];
const raf = (cb: () => void) => frames.push(cb);
const frame = () => {
  const fs = frames;
  frames = [];
  for (const f of fs) f();
};
beforeEach(() => {
  frames = [];
});

describe('TurnStore', () => {
  it('applies coalesced token runs in order', () => {
    const p = new TurnStore(fakeBackend({}), { raf });
    p.ingest([run(1, 3), del(ev(4, 'tool_call', { call_id: 'c', name: 'x', args: {} })), run(5, 6)]);
    frame();
    expect(textOf(p)).toBe('[1][2][3]<tool>[5][6]');
    expect(p.view('t1').lastSeq).toBe(6);
  });

  it('ignores duplicates: items at or before the last seq', () => {
    const be = fakeBackend({});
    const p = new TurnStore(be, { raf });
    p.ingest([run(1, 2)]);
    p.ingest([run(1, 2), del(ev(2))]);
    p.ingest([del(ev(3))]);
    frame();
    expect(textOf(p)).toBe('[1][2][3]');
    expect(be.eventsAfter).not.toHaveBeenCalled();
  });

  it('detects a gap, fetches the missing range and applies it before the held items', async () => {
    const log = { t1: [1, 2, 3, 4, 5, 6, 7].map((s) => ev(s)) };
    const be = fakeBackend(log);
    const p = new TurnStore(be, { raf });
    p.ingest([run(1, 2)]);
    // 3..4 were lost; 5..6 arrive, then 7 while the fetch is in flight.
    p.ingest([run(5, 6)]);
    p.ingest([del(ev(7))]);
    expect(be.eventsAfter).toHaveBeenCalledWith('t1', 2);
    await p.settled();
    frame();
    expect(textOf(p)).toBe('[1][2][3][4][5][6][7]');
    expect(be.eventsAfter).toHaveBeenCalledTimes(1);
  });

  it('treats a merged run overlapping what it has as a gap, without repeating text', async () => {
    const log = { t1: [1, 2, 3, 4].map((s) => ev(s)) };
    const be = fakeBackend(log);
    const p = new TurnStore(be, { raf });
    p.ingest([run(1, 2)]);
    p.ingest([run(2, 4)]);
    await p.settled();
    frame();
    expect(be.eventsAfter).toHaveBeenCalledWith('t1', 2);
    expect(textOf(p)).toBe('[1][2][3][4]');
  });

  it('catches up on a turn first seen mid-stream', async () => {
    const log = { t2: [1, 2, 3].map((s) => ev(s, 'token', { text: `[${s}]` }, 't2')) };
    const be = fakeBackend(log);
    const p = new TurnStore(be, { raf });
    p.ingest([del(ev(3, 'token', { text: '[3]' }, 't2'))]);
    await p.settled();
    frame();
    expect(be.eventsAfter).toHaveBeenCalledWith('t2', 0);
    expect(textOf(p, 't2')).toBe('[1][2][3]');
  });

  it('keeps going when the fetch of a gap fails', async () => {
    const be = fakeBackend({});
    be.eventsAfter.mockRejectedValueOnce(new Error('offline'));
    const warn = vi.fn();
    const p = new TurnStore(be, { raf, onWarning: warn });
    p.ingest([run(1, 1)]);
    p.ingest([run(4, 5)]);
    await p.settled();
    frame();
    expect(textOf(p)).toBe('[1][4][5]');
    expect(warn).toHaveBeenCalled();
  });

  it('opens a running turn: getTurn, then eventsAfter its last seq, with live items held and deduplicated', async () => {
    const log = { t1: [1, 2, 3, 4, 5, 6].map((s) => ev(s)) };
    const be = fakeBackend(log, { t1: { last_seq: 3, state: 'running' } });
    const p = new TurnStore(be, { raf });
    const loading = p.load('t1');
    // Live items arrive while loading: one already stored, one new.
    p.ingest([run(3, 4)]);
    p.ingest([del(ev(7))]);
    await loading;
    frame();
    expect(be.getTurn).toHaveBeenCalledWith('t1', true);
    expect(be.eventsAfter).toHaveBeenCalledWith('t1', 3);
    expect(textOf(p)).toBe('[1][2][3][4][5][6][7]');
    expect(p.view('t1').loaded).toBe(true);
  });

  it('opens a finished turn from its stored events only', async () => {
    const log = { t1: [ev(1), ev(2, 'final_answer', { text: '[1]' })] };
    const be = fakeBackend(log, { t1: { last_seq: 2, state: 'completed' } });
    const p = new TurnStore(be, { raf });
    await p.load('t1');
    expect(be.eventsAfter).not.toHaveBeenCalled();
    expect(p.view('t1').state).toBe('completed');
    expect(textOf(p)).toBe('[1]');
  });

  it('resyncs running turns after the stream reconnects', async () => {
    const log = { t1: [1, 2, 3].map((s) => ev(s)) };
    const be = fakeBackend(log);
    const p = new TurnStore(be, { raf });
    p.ingest([run(1, 1)]);
    frame();
    p.resync();
    await p.settled();
    frame();
    expect(be.eventsAfter).toHaveBeenCalledWith('t1', 1);
    expect(textOf(p)).toBe('[1][2][3]');
  });

  it('shows a turn that thought the same live and loaded again from its stored events', async () => {
    const at = (ms: number) => new Date(Date.UTC(2025, 0, 1) + ms).toISOString();
    const stored = [
      { ...ev(1, 'think_start', {}), at: at(0) },
      { ...ev(2, 'reasoning', { text: 'Let me ' }), at: at(100) },
      { ...ev(3, 'reasoning', { text: 'see <img src=x>' }), at: at(110) },
      { ...ev(4, 'reasoning', { text: '.' }), at: at(2300) },
      { ...ev(5, 'token', { text: 'Seen.' }), at: at(2400) },
      { ...ev(6, 'think_end', {}), at: at(2500) },
      { ...ev(7, 'final_answer', { text: 'Seen.' }), at: at(2500) },
    ];
    const live = new TurnStore(fakeBackend({}), { raf });
    // The coalescer merges reasoning like tokens: one item for 2..3, with the later time.
    live.ingest([del(stored[0]!), del({ ...stored[2]!, data: { text: 'Let me see <img src=x>' } } as AgentEvent, 2)]);
    frame();
    expect(live.view('t1').blocks).toEqual([expect.objectContaining({ kind: 'thinking', text: 'Let me see <img src=x>', done: false })]);
    live.ingest(stored.slice(3).map((e) => del(e)));
    frame();

    const loaded = new TurnStore(fakeBackend({ t1: stored }, { t1: { last_seq: 7, state: 'completed' } }), { raf });
    await loaded.load('t1');
    const shape = (p: TurnStore) =>
      p
        .view('t1')
        .blocks.map((b) => (b.kind === 'thinking' ? { kind: b.kind, text: b.text, done: b.done, s: formatSeconds(thinkingMs(b)) } : b));
    expect(shape(loaded)).toEqual(shape(live));
    expect(shape(loaded)[0]).toEqual({ kind: 'thinking', text: 'Let me see <img src=x>.', done: true, s: '2 s' });
    expect(textOf(loaded)).toBe('<thinking>Seen.');
  });

  it('calls onApplied once per frame with the frame events', () => {
    const onApplied = vi.fn();
    const p = new TurnStore(fakeBackend({}), { raf, onApplied });
    p.ingest([run(1, 2), del(ev(3, 'final_answer', { text: 'x' }))]);
    frame();
    expect(onApplied).toHaveBeenCalledTimes(1);
    expect(onApplied.mock.calls[0]![1]).toHaveLength(2);
  });
});

describe('TurnStore with requestAnimationFrame', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['requestAnimationFrame', 'setTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('applies a 2,000 tokens/s stream once per frame, not once per token', () => {
    const updates = vi.fn();
    const p = new TurnStore(fakeBackend({}), { onApplied: updates });
    // One second of tokens, one per half millisecond, each its own delivery.
    let seq = 0;
    for (let ms = 0; ms < 1000; ms++) {
      p.ingest([del(ev(++seq)), del(ev(++seq))]);
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersToNextFrame();
    expect(p.view('t1').lastSeq).toBe(2000);
    // ~60 frames in a second, far fewer than 2,000 tokens.
    expect(updates.mock.calls.length).toBeGreaterThan(30);
    expect(updates.mock.calls.length).toBeLessThan(100);
    const text = p.view('t1').blocks[0];
    expect(text?.kind === 'text' && text.text.startsWith('[1][2][3]')).toBe(true);
  });

  it('applies nothing before the frame', () => {
    const p = new TurnStore(fakeBackend({}));
    p.ingest([run(1, 3)]);
    expect(p.view('t1').blocks).toHaveLength(0);
    vi.advanceTimersToNextFrame();
    expect(p.view('t1').blocks).toHaveLength(1);
  });
});

describe('mergeTokens', () => {
  it('merges consecutive tokens of a stage and keeps others apart', () => {
    const a = { ...ev(1), stage_id: 'x' };
    const b = { ...ev(2), stage_id: 'x' };
    const c = { ...ev(3), stage_id: 'y' };
    const d = ev(4, 'think_end', {});
    const out = mergeTokens([a, b, c, d]);
    expect(out).toHaveLength(3);
    expect(out[0]).toMatchObject({ seq: 2, data: { text: '[1][2]' } });
  });
});

describe('TurnStore memory', () => {
  const row = (id: string, session = 's1', state: Turn['state'] = 'completed'): Turn => ({
    id,
    parent_turn_id: '',
    continues: false,
    session_id: session,
    seq: Number(id.replace(/\D/g, '')) || 1,
    user_message: `q ${id}`,
    state,
    workflow: 'chat',
    model: 'm',
    started_at: '',
    completed_at: null,
    final_text: `answer ${id}`,
    outcome: '',
    termination: { kind: '' },
  });
  const done = (id: string) => ({ id, user_message: `q ${id}`, last_seq: 0, state: 'completed' as const, final_text: `answer ${id}` });

  it('keeps the view of the most recently shown finished turns and lets older ones drop back to their row', async () => {
    const ids = ['t1', 't2', 't3', 't4'];
    const p = new TurnStore(fakeBackend({}, Object.fromEntries(ids.map((id) => [id, done(id)]))), { raf, keep: 2 });
    p.open(
      's1',
      ids.map((id) => row(id)),
    );
    for (const id of ids) {
      const unpin = p.pin(id);
      await p.load(id);
      expect(p.view(id).loaded).toBe(true);
      unpin();
    }
    expect(ids.map((id) => p.view(id).loaded)).toEqual([false, false, true, true]);
    // Dropped back to its row: still shown with its answer, and loaded again when asked.
    expect(p.shown('t1')).toMatchObject({ finalText: 'answer t1', state: 'completed', userMessage: 'q t1' });
    await p.load('t1');
    expect(p.view('t1').loaded).toBe(true);
  });

  it('never lets go of a pinned or running turn', async () => {
    const p = new TurnStore(fakeBackend({ t9: [ev(1)] }, { t1: done('t1') }), { raf, keep: 0 });
    p.open('s1', [row('t1'), row('t9', 's1', 'running')]);
    const unpin = p.pin('t1');
    await p.load('t1');
    p.ingest([del(ev(1, 'token', { text: 'hi' }, 't9'))]);
    frame();
    p.open('s2', []);
    expect(p.view('t1').loaded).toBe(true);
    expect(p.view('t9').blocks).toHaveLength(1);
    unpin();
    p.open('s3', []);
    expect(p.peek('t1')).toBeUndefined();
    expect(p.peek('t9')).toBeDefined();
  });

  it('keeps a turn that ended before the page knew its id, and drops it when another session opens', () => {
    const p = new TurnStore(fakeBackend({}), { raf });
    p.open('s1', [row('t1')]);
    const s2 = (e: AgentEvent) => del({ ...e, session_id: 's2' });
    for (const turn of ['t5', 'copy']) {
      p.ingest([
        s2(ev(1, 'token', { text: 'done' }, turn)),
        s2(ev(2, 'turn_completed', { ok: true, outcome: 'completed', termination: { kind: 'completed' } }, turn)),
      ]);
    }
    frame();
    // SendMessage's (or ReplayTurn's) answer lands after the turn ended.
    p.describe('copy', { sessionId: 's2', userMessage: 'q', loaded: true });
    expect(p.status('copy')).toBe('completed');
    expect(p.view('copy').blocks).toHaveLength(1);
    p.open('s3', []);
    expect(p.peek('t5')).toBeUndefined();
    expect(p.peek('copy')).toBeUndefined();
    expect(p.peek('t1')).toBeUndefined();
  });

  it('forgets a deleted session', () => {
    const p = new TurnStore(fakeBackend({}), { raf });
    p.open('s1', [row('t1'), row('t2', 's1', 'running')]);
    p.remember([row('t3', 's2')]);
    p.forgetSession('s1');
    expect(p.size).toBe(1);
    expect(p.summary('t3')).toBeDefined();
  });

  it('says a turn row state until its view is loaded, then the view', async () => {
    const p = new TurnStore(fakeBackend({}, { t1: { ...done('t1'), state: 'interrupted' } }), { raf });
    p.open('s1', [row('t1', 's1', 'running')]);
    expect(p.status('t1')).toBe('running');
    await p.load('t1');
    expect(p.status('t1')).toBe('interrupted');
  });
});
