// The sidebar marks the sessions with a running turn: from the session
// list's running_turn right after a (re)load, then from the events (a turn
// seen running or ending) and the backend's turns_changed notices.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../fake';
import type { Delivered, EventType } from '../types';
import { createApp } from './app.svelte';
import { SessionsStore } from './sessions.svelte';

const at = new Date(2025, 5, 18, 9);

function event(sessionId: string, turnId: string, seq: number, type: EventType, data: unknown = {}): Delivered {
  return {
    id: `${turnId}-e${seq}`,
    session_id: sessionId,
    turn_id: turnId,
    stage_id: '',
    seq,
    first_seq: seq,
    parent_id: '',
    at: at.toISOString(),
    type,
    phase: type === 'cancelled' ? 'terminal' : 'thinking',
    checkpoint: false,
    data,
  } as Delivered;
}

describe('running sessions, from the list', () => {
  it('marks the sessions the list says run a turn, as a reload finds them', async () => {
    const b = new FakeBackend();
    const busy = b.addSession('Busy', at);
    const idle = b.addSession('Idle', at, 2);
    b.addForeignTurn(busy.id, 'Still going');
    const s = new SessionsStore(b);
    await s.refresh();
    expect([...s.running]).toEqual([busy.id]);
    expect(s.running.has(idle.id)).toBe(false);
  });

  it('keeps a turn seen ending unmarked when an older answer of the list still names it', async () => {
    const b = new FakeBackend();
    const busy = b.addSession('Busy', at);
    const t = b.addForeignTurn(busy.id, 'Still going');
    const s = new SessionsStore(b);
    await s.refresh();
    s.noteTurn(busy.id, t.id, 'completed');
    expect(s.running.size).toBe(0);
    await s.refresh(); // the fake still stores it as running
    expect(s.running.size).toBe(0);
    s.noteTurn(busy.id, t.id, 'running'); // a late event of the ended turn
    expect(s.running.size).toBe(0);
  });
});

describe('running sessions, live', () => {
  let frames: Array<() => void> = [];
  const frame = () => {
    const fs = frames;
    frames = [];
    for (const f of fs) f();
  };
  beforeEach(() => {
    vi.useFakeTimers();
    frames = [];
  });
  afterEach(() => vi.useRealTimers());

  function setup() {
    const b = new FakeBackend({ tick: 10, tokensPerTick: 8 });
    b.providers = [
      {
        name: 'ollama',
        kind: 'ollama',
        base_url: 'http://127.0.0.1:11434/v1',
        local: true,
        needs_key: false,
        models: ['m1'],
        has_key: false,
        masked_key: '',
      },
    ];
    b.settings.default_provider = 'ollama';
    b.settings.default_model = 'm1';
    const app = createApp(b, { raf: (cb) => frames.push(cb) });
    app.start();
    return { b, app };
  }

  async function advance(ms: number) {
    for (let t = 0; t < ms; t += 10) {
      await vi.advanceTimersByTimeAsync(10);
      frame();
    }
  }

  it('marks the session of a turn sent here until the turn ends', async () => {
    const { app } = setup();
    await advance(20);
    const id = await app.send('hello');
    const sid = app.conversation.session!.id;
    expect(app.sessions.running.has(sid)).toBe(true);
    await advance(2000);
    expect(app.turns.view(id!).state).toBe('completed');
    expect(app.sessions.running.has(sid)).toBe(false);
  });

  it('marks a session whose turn another window started, from its events, and unmarks it when it is cancelled', async () => {
    const { b, app } = setup();
    const other = b.addSession('Other', at);
    await advance(20);
    b.emit([event(other.id, 'tx1', 1, 'think_start')]);
    await advance(10);
    expect(app.sessions.running.has(other.id)).toBe(true);
    b.emit([event(other.id, 'tx1', 2, 'cancelled', { partial_text: '' })]);
    await advance(10);
    expect(app.sessions.running.has(other.id)).toBe(false);
  });

  it('unmarks a session whose turn the backend marked interrupted', async () => {
    const { b, app } = setup();
    const s = b.addSession('Foreign', at);
    const t = b.addForeignTurn(s.id, 'Count forever');
    await app.sessions.refresh();
    expect(app.sessions.running.has(s.id)).toBe(true);
    b.interruptForeignTurn(t.id, 'one two');
    await advance(20);
    expect(app.sessions.running.has(s.id)).toBe(false);
  });
});
