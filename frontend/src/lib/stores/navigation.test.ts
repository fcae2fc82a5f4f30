// The open session and turn live in the location hash: opening writes it,
// a reload (a new app on the same address) opens what it names, Back and
// Forward move between places, and a hash naming nothing says so and shows
// a new session.
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../fake';
import { Router } from '../route';
import { FakeWindow } from '../routetest';
import { createApp } from './app.svelte';
import { rowsOf } from './testing';

const at = new Date(2025, 5, 18, 9);

function seeded() {
  const b = new FakeBackend({ tick: 1 });
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
  const long = b.addSession('Long', at, 120);
  const short = b.addSession('Short', at, 2);
  return { b, long, short };
}

function turnOf(b: FakeBackend, sessionId: string, seq: number) {
  return [...b.turns.values()].find((t) => t.session_id === sessionId && t.seq === seq)!;
}

/** An app on a window: what a page load (or reload) of that window starts. */
async function load(b: FakeBackend, w: FakeWindow) {
  const app = createApp(b, { raf: (cb) => setTimeout(cb, 0), router: new Router(w) });
  app.start();
  await settle(app);
  return app;
}

async function settle(app: ReturnType<typeof createApp>) {
  for (let i = 0; i < 5; i++) {
    await new Promise((r) => setTimeout(r, 0));
    await app.turns.settled();
  }
}

describe('navigation', () => {
  it('writes the open session and a search hit’s turn in the hash, and a reload opens the same turn, marked', async () => {
    const { b, long } = seeded();
    const w = new FakeWindow('/');
    const app = await load(b, w);
    const t3 = turnOf(b, long.id, 3);

    await app.openSession(long.id);
    expect(w.location.hash).toBe(`#/s/${long.id}`);
    await app.openSession(long.id, { turnId: t3.id, seq: 3, terms: ['squared'] });
    expect(w.location.hash).toBe(`#/s/${long.id}/t/${t3.id}`);
    const c = app.conversation;
    expect(rowsOf(app).some((t) => t.id === t3.id)).toBe(true);
    expect(c.focus).toMatchObject({ turnId: t3.id, terms: ['squared'] });
    app.stop();

    // The reload: the same window, a new app.
    const again = await load(b, w);
    const r = again.conversation;
    expect(r.session?.id).toBe(long.id);
    expect(rowsOf(again).some((t) => t.id === t3.id)).toBe(true);
    expect(r.focus).toMatchObject({ turnId: t3.id, terms: ['squared'] });
    // Paged in with the turns after it, not the whole session one page at a time.
    expect(rowsOf(again)[0]!.seq).toBeLessThanOrEqual(3);
    expect(b.calls.filter((x) => x.method === 'listBranch').length).toBeLessThanOrEqual(2 + 2 + 1);
    again.stop();
  });

  it('reopens the session after a reload without a turn, at its latest turn', async () => {
    const { b, short } = seeded();
    const w = new FakeWindow(`/?token=abc#/s/${short.id}`);
    const app = await load(b, w);
    expect(app.conversation.session?.title).toBe('Short');
    expect(app.conversation.focus).toBeNull();
    expect(w.urls()).toEqual([`/?token=abc#/s/${short.id}`]);
    app.stop();
  });

  it('moves back and forward between sessions, a turn and a new session', async () => {
    const { b, long, short } = seeded();
    const w = new FakeWindow('/');
    const app = await load(b, w);
    const t5 = turnOf(b, long.id, 5);
    await app.openSession(short.id);
    await app.openSession(long.id, { turnId: t5.id, seq: 5 });
    app.newSession();
    expect(w.urls()).toEqual(['/', `/#/s/${short.id}`, `/#/s/${long.id}/t/${t5.id}`, '/']);

    w.go(-1);
    await settle(app);
    expect(app.conversation.session?.id).toBe(long.id);
    expect(app.conversation.focus?.turnId).toBe(t5.id);
    w.go(-1);
    await settle(app);
    expect(app.conversation.session?.id).toBe(short.id);
    expect(app.conversation.focus).toBeNull();
    w.go(2);
    await settle(app);
    expect(app.conversation.session).toBeNull();
    expect(app.conversation.draft.model).toBe('m1');
    app.stop();
  });

  it('keeps the Usage page in the hash: a reload shows it, opening a session leaves it, Back returns to it', async () => {
    const { b, short } = seeded();
    const w = new FakeWindow('/#/usage');
    const app = await load(b, w);
    expect(app.view).toBe('usage');
    await app.openSession(short.id);
    expect(app.view).toBe('conversation');
    app.openUsage();
    expect(app.view).toBe('usage');
    expect(w.urls()).toEqual(['/#/usage', `/#/s/${short.id}`, '/#/usage']);
    w.go(-1);
    await settle(app);
    expect(app.view).toBe('conversation');
    expect(app.conversation.session?.id).toBe(short.id);
    w.go(1);
    await settle(app);
    expect(app.view).toBe('usage');
    app.newSession();
    expect(app.view).toBe('conversation');
    expect(w.urls().at(-1)).toBe('/');
    app.stop();
  });

  it('keeps the Evaluations page and its run in the hash: a reload shows them, Back and Forward move between runs', async () => {
    const { b, short } = seeded();
    const w = new FakeWindow('/#/evals/r2');
    const app = await load(b, w);
    expect(app.view).toBe('evals');
    expect(app.evalsAt).toEqual({ runId: 'r2', otherId: '' });
    app.openEvals('r2', 'r1');
    expect(app.evalsAt).toEqual({ runId: 'r2', otherId: 'r1' });
    await app.openSession(short.id);
    expect(app.view).toBe('conversation');
    app.openEvals();
    expect(app.evalsAt).toEqual({ runId: '', otherId: '' });
    expect(w.urls()).toEqual(['/#/evals/r2', '/#/evals/r2/diff/r1', `/#/s/${short.id}`, '/#/evals']);
    w.go(-2);
    await settle(app);
    expect(app.view).toBe('evals');
    expect(app.evalsAt).toEqual({ runId: 'r2', otherId: 'r1' });
    app.openEvals('r3', '', { replace: true });
    expect(w.urls()[1]).toBe('/#/evals/r3');
    app.stop();
  });

  it('names the new session once its first message creates it, in place of the empty hash', async () => {
    const { b } = seeded();
    const w = new FakeWindow('/');
    const app = await load(b, w);
    await app.send('Hello there');
    const id = app.conversation.session!.id;
    expect(w.urls()).toEqual([`/#/s/${id}`]);
    app.stop();
  });

  it('says a session in the hash is gone and shows a new session, with nothing to go back to', async () => {
    const { b } = seeded();
    const w = new FakeWindow('/#/s/s999');
    const app = await load(b, w);
    const c = app.conversation;
    expect(c.session).toBeNull();
    expect(c.error).toBe('There is no session s999. It may have been deleted.');
    expect(c.draft.model).toBe('m1');
    expect(w.urls()).toEqual(['/']);
    app.stop();
  });

  it('says a turn in the hash is not in its session and shows the session from its latest turn', async () => {
    const { b, long, short } = seeded();
    const other = turnOf(b, long.id, 1);
    for (const turnId of ['t999', other.id]) {
      const w = new FakeWindow(`/#/s/${short.id}/t/${turnId}`);
      const app = await load(b, w);
      const c = app.conversation;
      expect(c.session?.id).toBe(short.id);
      expect(rowsOf(app)).toHaveLength(2);
      expect(c.focus).toBeNull();
      expect(c.error).toContain(`There is no turn ${turnId} in this session`);
      expect(w.urls()).toEqual([`/#/s/${short.id}`]);
      app.stop();
    }
  });

  it('says an address that is not a route of the app is not one, and shows a new session', async () => {
    const { b } = seeded();
    const w = new FakeWindow('/#/s/..');
    const app = await load(b, w);
    expect(app.conversation.error).toContain('does not name a session or a turn');
    expect(w.urls()).toEqual(['/']);
    app.stop();
  });

  it('drops the turn from the hash when a message is sent from a marked turn, and when the mark is cleared', async () => {
    const { b, short, long } = seeded();
    const w = new FakeWindow('/');
    const app = await load(b, w);
    const t1 = turnOf(b, short.id, 1);
    await app.openSession(short.id, { turnId: t1.id, seq: 1, terms: ['squared'] });
    await app.send('One more');
    expect(w.location.hash).toBe(`#/s/${short.id}`);
    expect(app.conversation.focus).toBeNull();

    const t2 = turnOf(b, long.id, 2);
    await app.openSession(long.id, { turnId: t2.id, seq: 2 });
    app.unfocus();
    expect(w.location.hash).toBe(`#/s/${long.id}`);
    expect(app.conversation.focus).toBeNull();
    app.stop();
  });
});
