// Side by side in the stores: a message to several targets shows as
// columns (the chain the backend reads), the session runs while any
// column runs, Stop and Esc stop them all, a message sent while columns
// show goes to each column's branch, "Continue with this one" makes one
// branch the conversation, and a group can be opened again. The fake
// backend streams its columns at different speeds (fake-groups.ts).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { localBackend, steppedApp } from './testing';
import { TargetsDraft, targetLabel } from './sidebyside.svelte';

const targets = [
  { provider: 'ollama', model: 'm1' },
  { provider: 'ollama', model: 'm2' },
  { provider: 'ollama', model: 'm3', workflow: 'critique-revise' },
];

describe('side by side', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  let advance: (ms: number) => Promise<void>;
  function setup() {
    const b = localBackend('m1', { tick: 10, tokensPerTick: 8 });
    b.providers[0]!.models = ['m1', 'm2', 'm3'];
    const stepped = steppedApp(b);
    advance = stepped.advance;
    return { b, app: stepped.app };
  }

  async function untilEnded(app: ReturnType<typeof setup>['app']) {
    for (let i = 0; i < 2000 && app.sideBySide.running; i++) await advance(10);
  }

  it('shows one column per target, named by its target, and keeps the session running while any column runs', async () => {
    const { app } = setup();
    await advance(20);
    const group = await app.sendSideBySide('hello', { targets });
    const sid = app.conversation.session!.id;
    expect(group).toBeTruthy();
    expect(app.sideBySide.columns.map((c) => c.name)).toEqual(['m1 · ollama', 'm2 · ollama', 'critique-revise · m3 · ollama']);
    expect(app.sideBySide.columns.map((c) => c.letter)).toEqual(['A', 'B', 'C']);
    expect(app.sessions.items.find((s) => s.id === sid)?.open_group_id).toBe(group);
    expect(app.sideBySide.running).toBe(true);
    expect(app.sessions.running.has(sid)).toBe(true);
    expect(app.runningTurn()).toBeTruthy();
    // Column A ticks fastest: it ends while the others still run.
    const [a, b] = app.sideBySide.columns;
    for (let i = 0; i < 2000 && app.turns.status(a!.last) === 'running'; i++) await advance(10);
    expect(app.turns.status(b!.last)).toBe('running');
    expect(app.sideBySide.columns[0]!.state).toBe('completed');
    expect(app.sessions.running.has(sid)).toBe(true);
    expect(app.sideBySide.ended).toBe(false);
    await untilEnded(app);
    expect(app.sessions.running.has(sid)).toBe(false);
    expect(app.sideBySide.ended).toBe(true);
    expect(app.runningTurn()).toBeNull();
  });

  it('names blind columns by letter until a vote, and stores the targets shuffled', async () => {
    const { b, app } = setup();
    await advance(20);
    const group = await app.sendSideBySide('hello', { targets: targets.slice(0, 2), blind: true });
    expect(app.sideBySide.blind).toBe(true);
    expect(app.sideBySide.labels).toEqual(['A', 'B']);
    expect(app.sideBySide.columns.map((c) => c.name)).toEqual(['A', 'B']);
    // The fake "shuffles" by one place.
    expect((await b.groupChain(group!))[0]!.targets?.map(targetLabel)).toEqual(['m2 · ollama', 'm1 · ollama']);
    // The latest diagnostics (Ctrl+Shift+D) would name the model: not before the vote.
    app.toggleLatestDiagnostics();
    expect(app.ui.diagnosticsTurn).toBeNull();
    await untilEnded(app);
  });

  it('stops every column with stopRunning (the composer’s Stop, Esc), and one column alone with stopTurn', async () => {
    const { b, app } = setup();
    await advance(20);
    const group = await app.sendSideBySide('hello', { targets });
    await advance(30);
    const [, second] = app.sideBySide.columns;
    await app.stopTurn(second!.last);
    await advance(20);
    expect(app.sideBySide.columns.map((c) => c.state)).toEqual(['running', 'cancelled', 'running']);
    await app.stopRunning();
    await advance(20);
    expect(b.calls.filter((c) => c.method === 'stopGroup').map((c) => c.args[0])).toEqual([group]);
    expect(app.sideBySide.columns.every((c) => c.state === 'cancelled')).toBe(true);
    expect(app.sideBySide.running).toBe(false);
  });

  it('sends a message while columns show to each column’s own branch', async () => {
    const { b, app } = setup();
    await advance(20);
    const first = await app.sendSideBySide('hello', { targets: targets.slice(0, 2) });
    await untilEnded(app);
    const before = app.sideBySide.columns.map((c) => c.last);
    const second = await app.sendSideBySide('and then?', { follows: first! });
    const chain = await b.groupChain(second!);
    expect(chain.map((g) => g.id)).toEqual([first, second]);
    const cols = app.sideBySide.columns;
    expect(cols.map((c) => c.turnIds.length)).toEqual([2, 2]);
    expect(cols.map((c) => (c.turnIds[1] ? b.turns.get(c.turnIds[1])?.parent_turn_id : ''))).toEqual(before);
    // The conversation's branch is column A's: shared history, then A's turns.
    expect(app.conversation.ids).toEqual(cols[0]!.turnIds);
    await untilEnded(app);
  });

  it('continues with one column as the conversation, and opens the group again', async () => {
    const { app } = setup();
    await advance(20);
    const group = await app.sendSideBySide('hello', { targets });
    await untilEnded(app);
    const chosen = app.sideBySide.columns[2]!.last;
    await app.continueWith(chosen);
    expect(app.sideBySide.active).toBe(false);
    expect(app.conversation.session?.open_group_id ?? '').toBe('');
    expect(app.conversation.ids).toEqual([chosen]);
    expect(app.conversation.versions[chosen]).toHaveLength(3);

    await app.openGroup(group!);
    expect(app.sideBySide.active).toBe(true);
    expect(app.sideBySide.columns).toHaveLength(3);
    // A reload (opening the session again) shows the same columns.
    await app.conversation.open(app.conversation.sessionId);
    expect(app.sideBySide.columns.map((c) => c.last)).toHaveLength(3);
  });
});

describe('the targets of the next message', () => {
  it('adds up to four distinct targets and says why not past that', () => {
    const d = new TargetsDraft();
    expect(d.add({ provider: 'p', model: 'a' })).toBe('');
    expect(d.ready).toBe(false);
    expect(d.add({ provider: 'p', model: ' a ' })).toBe('a · p is already a target.');
    expect(d.add({ provider: 'p', model: 'a', workflow: 'handoff' })).toBe('');
    expect(d.ready).toBe(true);
    expect(d.add({ provider: 'q', model: '' })).toBe('Pick a model first.');
    d.add({ provider: 'p', model: 'b' });
    d.add({ provider: 'p', model: 'c' });
    expect(d.full).toBe(true);
    expect(d.add({ provider: 'p', model: 'd' })).toBe('Side by side sends to at most 4 targets.');
    d.remove(0);
    expect(d.targets.map(targetLabel)).toEqual(['handoff · a · p', 'b · p', 'c · p']);
    d.blind = true;
    d.open = true;
    d.reset();
    expect([d.targets.length, d.blind, d.open]).toEqual([0, false, false]);
  });
});
