import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { get } from 'svelte/store';
import type { AgentEvent, Delivered, TurnDetail } from '../types';
import { EventPipeline, mergeTokens, type PipelineBackend } from './pipeline';

function ev(seq: number, type: AgentEvent['type'] = 'token', data: unknown = { text: `[${seq}]` }, turn = 't1'): AgentEvent {
  return { id: `${turn}-e${seq}`, session_id: 's1', turn_id: turn, stage_id: '', seq, parent_id: '', at: '2025-01-01T00:00:00.000Z', type, phase: 'thinking', checkpoint: false, data };
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
    return { id: turnId, session_id: 's1', seq: 1, user_message: 'q', state: 'running', workflow: 'chat', model: 'm', started_at: '', completed_at: null, final_text: '', outcome: '', termination: { kind: '' }, messages: [], stages: [], plan: [], charts: [], result: null, ...d, events: withEvents ? events : undefined } as TurnDetail;
  });
  return { eventsAfter, getTurn } satisfies PipelineBackend;
}

function textOf(p: EventPipeline, turn = 't1') {
  return get(p.turn(turn))
    .blocks.map((b) => (b.kind === 'text' ? b.text : `<${b.kind}>`))
    .join('');
}

describe('EventPipeline', () => {
  let frames: Array<() => void>;
  const raf = (cb: () => void) => frames.push(cb);
  const frame = () => {
    const fs = frames;
    frames = [];
    for (const f of fs) f();
  };

  beforeEach(() => {
    frames = [];
  });

  it('applies coalesced token runs in order', () => {
    const p = new EventPipeline(fakeBackend({}), { raf });
    p.ingest([run(1, 3), del(ev(4, 'tool_call', { call_id: 'c', name: 'x', args: {} })), run(5, 6)]);
    frame();
    expect(textOf(p)).toBe('[1][2][3]<tool>[5][6]');
    expect(get(p.turn('t1')).lastSeq).toBe(6);
  });

  it('ignores duplicates: items at or before the last seq', () => {
    const be = fakeBackend({});
    const p = new EventPipeline(be, { raf });
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
    const p = new EventPipeline(be, { raf });
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
    const p = new EventPipeline(be, { raf });
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
    const p = new EventPipeline(be, { raf });
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
    const p = new EventPipeline(be, { raf, onWarning: warn });
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
    const p = new EventPipeline(be, { raf });
    const loading = p.load('t1');
    // Live items arrive while loading: one already stored, one new.
    p.ingest([run(3, 4)]);
    p.ingest([del(ev(7))]);
    await loading;
    frame();
    expect(be.getTurn).toHaveBeenCalledWith('t1', true);
    expect(be.eventsAfter).toHaveBeenCalledWith('t1', 3);
    expect(textOf(p)).toBe('[1][2][3][4][5][6][7]');
    expect(get(p.turn('t1')).loaded).toBe(true);
  });

  it('opens a finished turn from its stored events only', async () => {
    const log = { t1: [ev(1), ev(2, 'final_answer', { text: '[1]' })] };
    const be = fakeBackend(log, { t1: { last_seq: 2, state: 'completed' } });
    const p = new EventPipeline(be, { raf });
    await p.load('t1');
    expect(be.eventsAfter).not.toHaveBeenCalled();
    expect(get(p.turn('t1')).state).toBe('completed');
    expect(textOf(p)).toBe('[1]');
  });

  it('resyncs running turns after the stream reconnects', async () => {
    const log = { t1: [1, 2, 3].map((s) => ev(s)) };
    const be = fakeBackend(log);
    const p = new EventPipeline(be, { raf });
    p.ingest([run(1, 1)]);
    frame();
    p.resync();
    await p.settled();
    frame();
    expect(be.eventsAfter).toHaveBeenCalledWith('t1', 1);
    expect(textOf(p)).toBe('[1][2][3]');
  });

  it('calls onApplied once per frame with the frame events', () => {
    const onApplied = vi.fn();
    const p = new EventPipeline(fakeBackend({}), { raf, onApplied });
    p.ingest([run(1, 2), del(ev(3, 'final_answer', { text: 'x' }))]);
    frame();
    expect(onApplied).toHaveBeenCalledTimes(1);
    expect(onApplied.mock.calls[0]![1]).toHaveLength(2);
  });
});

describe('EventPipeline with requestAnimationFrame', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['requestAnimationFrame', 'setTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('applies a 2,000 tokens/s stream once per frame, not once per token', () => {
    const p = new EventPipeline(fakeBackend({}));
    const updates = vi.fn();
    const unsub = p.turn('t1').subscribe(updates);
    updates.mockClear();
    // One second of tokens, one per half millisecond, each its own delivery.
    let seq = 0;
    for (let ms = 0; ms < 1000; ms++) {
      p.ingest([del(ev(++seq)), del(ev(++seq))]);
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersToNextFrame();
    unsub();
    expect(get(p.turn('t1')).lastSeq).toBe(2000);
    // ~60 frames in a second, far fewer than 2,000 tokens.
    expect(updates.mock.calls.length).toBeGreaterThan(30);
    expect(updates.mock.calls.length).toBeLessThan(100);
    const text = get(p.turn('t1')).blocks[0];
    expect(text?.kind === 'text' && text.text.startsWith('[1][2][3]')).toBe(true);
  });

  it('applies nothing before the frame', () => {
    const p = new EventPipeline(fakeBackend({}));
    p.ingest([run(1, 3)]);
    expect(get(p.turn('t1')).blocks).toHaveLength(0);
    vi.advanceTimersToNextFrame();
    expect(get(p.turn('t1')).blocks).toHaveLength(1);
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
