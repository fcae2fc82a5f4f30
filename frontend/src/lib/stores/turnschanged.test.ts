// A turn another process ran is marked interrupted by the backend when
// that process dies, with no event: the stores reload what shows it.
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../fake';
import { createApp } from './app.svelte';
import { rowsOf } from './testing';

// Every fake call resolves at once, so one macrotask lets the whole chain
// of reloads finish.
const settle = () => new Promise((r) => setTimeout(r, 0));

async function setup() {
  const b = new FakeBackend();
  const open = b.addSession('Open', new Date(2025, 5, 18, 9));
  const other = b.addSession('Other', new Date(2025, 5, 18, 8));
  const app = createApp(b, { raf: (cb) => cb() });
  app.start();
  await settle();
  return { b, app, open, other };
}

const listed = (b: FakeBackend, method: string) => b.calls.filter((c) => c.method === method).length;

describe('turns changed by the backend', () => {
  it('reloads the open session, the turn on screen and the session list', async () => {
    const { b, app, open } = await setup();
    const turn = b.addForeignTurn(open.id, 'Count forever');
    await app.openSession(open.id);
    await app.turns.load(turn.id);
    expect(app.runningTurn()).toBe(turn.id);
    // One read of the list: its projects, its pinned ones and its first page.
    const sessionsBefore = listed(b, 'listProjects');

    b.interruptForeignTurn(turn.id, 'one two');
    await settle();
    await app.turns.settled();

    const t = rowsOf(app).find((x) => x.id === turn.id);
    expect(t).toMatchObject({ state: 'interrupted', final_text: 'one two' });
    expect(app.turns.view(turn.id).state).toBe('interrupted');
    expect(app.runningTurn()).toBeNull();
    expect(listed(b, 'listProjects')).toBe(sessionsBefore + 1);
    // The session takes a message again.
    expect(await app.send('Go on')).toBeTruthy();
  });

  it('leaves the open conversation alone when another session changed', async () => {
    const { b, app, open, other } = await setup();
    b.addTurn(open.id, 'hello');
    const turn = b.addForeignTurn(other.id, 'elsewhere');
    await app.openSession(open.id);
    const turnsBefore = rowsOf(app);
    const listBranchBefore = listed(b, 'listBranch');
    // One read of the list: its projects, its pinned ones and its first page.
    const sessionsBefore = listed(b, 'listProjects');

    b.interruptForeignTurn(turn.id, '');
    await settle();

    expect(listed(b, 'listBranch')).toBe(listBranchBefore);
    expect(rowsOf(app)).toStrictEqual(turnsBefore);
    expect(listed(b, 'listProjects')).toBe(sessionsBefore + 1);
    // Not on screen: loaded fresh, as interrupted, when it is shown.
    await app.turns.load(turn.id);
    expect(app.turns.view(turn.id).state).toBe('interrupted');
  });

  it('keeps older turns paged in', async () => {
    const { b, app, open } = await setup();
    for (let i = 0; i < 60; i++) b.addTurn(open.id, `q${i}`);
    await app.openSession(open.id);
    expect(await app.conversation.loadOlder()).toBe(10);
    const turn = b.addForeignTurn(open.id, 'last');
    await app.conversation.reloadTurns();
    expect(rowsOf(app).map((t) => t.seq)).toEqual(Array.from({ length: 61 }, (_, i) => i + 1));
    b.interruptForeignTurn(turn.id, 'so far');
    await settle();
    const turns = rowsOf(app);
    expect(turns).toHaveLength(61);
    expect(turns[60]).toMatchObject({ id: turn.id, state: 'interrupted' });
  });
});
