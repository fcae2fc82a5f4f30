// The stores working together over the fake backend: a turn is sent,
// streamed, stopped, approved, replayed.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { FakeBackend } from '../fake';
import { createApp, titleFrom } from './app.svelte';
import { rowsOf } from './testing';
import { answerText } from './turnview';

let frames: Array<() => void> = [];
const raf = (cb: () => void) => frames.push(cb);
function frame() {
  const fs = frames;
  frames = [];
  for (const f of fs) f();
}

async function advance(ms: number) {
  for (let t = 0; t < ms; t += 10) {
    await vi.advanceTimersByTimeAsync(10);
    frame();
  }
}

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
  const app = createApp(b, { raf });
  app.start();
  return { b, app };
}

describe('app', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    frames = [];
  });
  afterEach(() => vi.useRealTimers());

  it('creates the session on the first message and streams the turn into its view', async () => {
    const { b, app } = setup();
    await advance(20);
    const id = await app.send('Summarise the data with a tool and a chart');
    expect(id).toBeTruthy();
    const conv = app.conversation;
    expect(conv.session?.title).toBe('Summarise the data with a tool and a chart');
    expect(conv.session?.model).toBe('m1');
    expect(conv.ids).toHaveLength(1);
    // No limits: the turn takes the settings' (SendRequest.limits is omitted).
    const sent = b.calls.find((c) => c.method === 'sendMessage')?.args[0];
    expect(sent).toMatchObject({ message: 'Summarise the data with a tool and a chart' });
    expect(sent).not.toHaveProperty('limits');
    await advance(2000);
    const v = app.turns.view(id!);
    expect(v.state).toBe('completed');
    expect(v.blocks.map((x) => x.kind)).toEqual(['tool', 'text', 'chart']);
    expect(answerText(v)).toContain('Here is what I found.');
    expect(v.result?.usage.total_tokens).toBeGreaterThan(0);
    expect(rowsOf(app)[0]!.state).toBe('completed');
    expect(app.sessions.items[0]!.id).toBe(conv.session?.id);
  });

  it('stops a running turn, keeps the partial answer and continues with a new turn', async () => {
    const { app } = setup();
    await advance(20);
    const id = (await app.send('Write a long answer'))!;
    await advance(60);
    expect(app.runningTurn()).toBe(id);
    await app.stopTurn(id);
    await advance(20);
    const v = app.turns.view(id);
    expect(v.state).toBe('cancelled');
    expect(answerText(v).length).toBeGreaterThan(0);
    expect(app.runningTurn()).toBeNull();
    const next = await app.send('Please continue.');
    expect(next).not.toBe(id);
    expect(rowsOf(app).map((t) => t.user_message)).toEqual(['Write a long answer', 'Please continue.']);
  });

  it('shows an approval and resumes the turn once answered', async () => {
    const { app } = setup();
    await advance(20);
    const id = (await app.send('Please approve the tool'))!;
    await advance(200);
    expect(app.approvals.items).toHaveLength(1);
    expect(app.approvals.items[0]).toMatchObject({ turn_id: id, tool: 'read_table' });
    await app.approvals.answer(id, 'call-1', 'deny');
    await advance(2000);
    const v = app.turns.view(id);
    expect(v.blocks[0]).toMatchObject({ kind: 'tool', status: 'error', error: 'The person denied this call.' });
    expect(v.state).toBe('completed');
  });

  it('shows the error card of an unreachable model', async () => {
    const { app } = setup();
    await advance(20);
    const id = (await app.send('this will fail'))!;
    await advance(300);
    const v = app.turns.view(id);
    expect(v.state).toBe('failed');
    expect(v.blocks.find((x) => x.kind === 'error')).toMatchObject({
      data: { source: 'llm', message: expect.stringContaining('Cannot reach the model server') },
    });
  });

  it('replays a turn into a new session and opens the comparison', async () => {
    const { b, app } = setup();
    await advance(20);
    const id = (await app.send('hello'))!;
    await advance(2000);
    await app.replay(id);
    const cmp = app.ui.compare;
    expect(cmp).toMatchObject({ originalId: id, kind: 'replay' });
    expect(b.sessions.find((s) => s.id === cmp!.copySessionId)?.title).toMatch(/^Replay of /);
    const unpin = app.turns.pin(cmp!.copyId); // the comparison shows it
    await advance(2000);
    expect(app.turns.view(cmp!.copyId).state).toBe('completed');
    // Closed, and another session opened: a finished turn of another session is let go, and read again from the store when shown.
    unpin();
    app.newSession();
    expect(app.turns.peek(cmp!.copyId)).toBeUndefined();
    await app.turns.load(cmp!.copyId);
    expect(app.turns.view(cmp!.copyId).state).toBe('completed');
  });

  it('opens the newest artifact of the session and closes the panel again (Ctrl+Shift+A)', async () => {
    const { app } = setup();
    await advance(20);
    app.toggleLatestArtifact();
    expect(app.ui.artifact).toBeNull(); // no artifact yet: nothing opens
    const first = (await app.send('Draw an artifact v1'))!;
    await advance(2000);
    const second = (await app.send('Now artifact v2'))!;
    await advance(2000);
    app.toggleLatestDiagnostics();
    expect(app.ui.diagnosticsTurn).toBe(second);
    app.toggleLatestArtifact();
    expect(app.ui.artifact).toMatchObject({ key: 'growth-dots', turnId: second });
    expect(app.ui.artifact?.content).toContain('Growth dots v2');
    expect(app.ui.diagnosticsTurn).toBeNull(); // the panels take turns
    app.toggleLatestArtifact();
    expect(app.ui.artifact).toBeNull();
    expect(first).not.toBe(second);
  });

  it('reports a refused message and keeps the app usable', async () => {
    const { app } = setup();
    await advance(20);
    expect(await app.send('   ')).toBeNull();
    await app.send('first');
    const second = await app.send('second while the first runs');
    expect(second).toBeNull();
    expect(app.ui.toast).toContain('already running');
  });
});

describe('titleFrom', () => {
  it('uses the first line, shortened', () => {
    expect(titleFrom('\n  Hello there\nmore')).toBe('Hello there');
    expect(titleFrom('x'.repeat(100))).toHaveLength(58);
  });
});
