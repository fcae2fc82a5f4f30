import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BackendError } from '../api';
import { FakeBackend } from '../fake';
import { ApprovalsStore } from './approvals.svelte';
import { conversationOf } from './testing';
import { SearchStore, SessionsStore } from './sessions.svelte';
import { SettingsStore } from './settings.svelte';

const now = new Date(2025, 5, 18, 12);

function seeded() {
  const b = new FakeBackend({ now: () => now });
  b.addSession('Old', new Date(2025, 4, 1));
  b.addSession('Yesterday', new Date(2025, 5, 17, 10));
  b.addSession('Today', new Date(2025, 5, 18, 9));
  return b;
}

describe('sessions store', () => {
  it('loads sessions and groups them by date', async () => {
    const s = new SessionsStore(seeded(), () => now);
    await s.refresh();
    expect(s.items.map((x) => x.title)).toEqual(['Today', 'Yesterday', 'Old']);
    expect(s.grouped.map((g) => g.group)).toEqual(['Today', 'Yesterday', 'Older']);
  });

  it('pages with the cursor', async () => {
    const b = seeded();
    for (let i = 0; i < 120; i++) b.addSession(`S${i}`, new Date(2025, 5, 1, 0, i));
    const s = new SessionsStore(b, () => now);
    await s.refresh();
    expect(s.items).toHaveLength(100);
    expect(s.nextCursor).not.toBe('');
    await s.loadMore();
    expect(s.items).toHaveLength(123);
    expect(s.nextCursor).toBe('');
  });

  it('lists evaluation sessions only while asked to, keeps the choice, and drops an answer to the list as it was', async () => {
    const b = seeded();
    b.addSession('A case', new Date(2025, 5, 18, 11)).kind = 'eval';
    const kept = new Map<string, boolean>();
    const prefs = { flag: (n: string, f: boolean) => kept.get(n) ?? f, setFlag: (n: string, on: boolean) => void kept.set(n, on) };
    const s = new SessionsStore(b, () => now, prefs);
    await s.refresh();
    expect(s.items.map((x) => x.title)).toEqual(['Today', 'Yesterday', 'Old']);
    const lists = () => b.calls.filter((c) => c.method === 'listSessions').map((c) => c.args[0]);
    expect(lists().at(-1)).toEqual({ limit: 100, project: '-' });

    await s.setShowEval(true);
    expect(s.showEval).toBe(true);
    expect(lists().at(-1)).toEqual({ limit: 100, eval: true, project: '-' });
    expect(s.items.map((x) => x.title)).toEqual(['A case', 'Today', 'Yesterday', 'Old']);
    // A new store (a reload) starts as it was left.
    expect(new SessionsStore(b, () => now, prefs).showEval).toBe(true);

    // An older answer (asked without eval) arriving after the switch back on is dropped.
    await s.setShowEval(false);
    const list = b.listSessions.bind(b);
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    b.listSessions = async (p) => {
      const page = await list(p);
      if (!p?.eval) await gate;
      return page;
    };
    const slow = s.refresh();
    await s.setShowEval(true);
    release();
    await slow;
    expect(s.items.map((x) => x.title)).toContain('A case');
  });

  it('renames optimistically and reverts when the backend refuses', async () => {
    const b = seeded();
    const s = new SessionsStore(b, () => now);
    await s.refresh();
    const id = s.items[0]!.id;
    await s.rename(id, '  Renamed  ');
    expect(s.items[0]!.title).toBe('Renamed');
    vi.spyOn(b, 'renameSession').mockRejectedValueOnce(new BackendError('unavailable', 'Disk full.'));
    await expect(s.rename(id, 'Again')).rejects.toThrow('Disk full.');
    expect(s.items[0]!.title).toBe('Renamed');
    expect(s.error).toBe('Disk full.');
  });

  it('deletes, creates and moves touched sessions to the top', async () => {
    const b = seeded();
    const s = new SessionsStore(b, () => now);
    await s.refresh();
    const old = s.items.find((x) => x.title === 'Old')!;
    s.touch(old.id, new Date(2025, 5, 18, 11).toISOString());
    expect(s.items[0]!.title).toBe('Old');
    await s.remove(old.id);
    expect(s.items.some((x) => x.id === old.id)).toBe(false);
    const made = await s.create({ title: 'Fresh' });
    expect(s.items[0]!.id).toBe(made.id);
  });
});

describe('search store', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('debounces and keeps only the latest answer', async () => {
    const b = seeded();
    const spy = vi.spyOn(b, 'searchSessions');
    const s = new SearchStore(b, 200);
    s.set('Tod');
    s.set('Today');
    expect(s.searching).toBe(true);
    await vi.advanceTimersByTimeAsync(250);
    expect(spy).toHaveBeenCalledTimes(1);
    expect(spy).toHaveBeenCalledWith('Today', 30);
    expect(s.hits[0]!.snippet).toContain('\x02Today\x03');
    s.set('');
    expect(s).toMatchObject({ query: '', hits: [], searching: false });
  });
});

describe('conversation store', () => {
  it('opens a session with its newest turns, oldest first, and pages in older ones', async () => {
    const b = new FakeBackend();
    const sess = b.addSession('Long', new Date(), 120);
    const { conversation: c, rows } = conversationOf(b);
    await c.open(sess.id);
    expect(c.session?.title).toBe('Long');
    expect(rows()).toHaveLength(50);
    expect(rows()[0]!.seq).toBe(71);
    expect(rows()[49]!.seq).toBe(120);
    expect(await c.loadOlder()).toBe(50);
    expect(rows()[0]!.seq).toBe(21);
    await c.loadOlder();
    expect(rows()[0]!.seq).toBe(1);
    expect(c.nextCursor).toBe('');
    expect(await c.loadOlder()).toBe(0);
  });

  it('drops an answer for a session no longer open', async () => {
    const b = new FakeBackend();
    const a = b.addSession('A', new Date(), 2);
    const z = b.addSession('Z', new Date(), 1);
    const { conversation: c } = conversationOf(b);
    const first = c.open(a.id);
    await c.open(z.id);
    await first;
    expect(c.session?.id).toBe(z.id);
  });

  it('shows an error for a missing session', async () => {
    const { conversation: c } = conversationOf(new FakeBackend());
    await c.open('nope');
    expect(c.error).toContain('no session');
  });
});

describe('settings store', () => {
  it('loads everything and lists models from the saved list or a test', async () => {
    const b = new FakeBackend();
    b.providers = [
      {
        name: 'ollama',
        kind: 'ollama',
        base_url: 'http://127.0.0.1:11434/v1',
        local: true,
        needs_key: false,
        models: [],
        has_key: false,
        masked_key: '',
      },
    ];
    const s = new SettingsStore(b);
    await s.load();
    expect(s.presets.length).toBeGreaterThan(3);
    expect(s.workflows.workflows?.map((w) => w.name)).toContain('chat');
    // No saved models: the server was asked, once, whatever shows them and how often the list reloads.
    expect(s.modelsOf('ollama')).toEqual(['llama3.2:3b', 'qwen2.5-coder:7b']);
    await s.reloadProviders();
    await s.reloadProviders();
    expect(b.calls.filter((c) => c.method === 'testProvider')).toHaveLength(1);
  });

  it('makes the first provider the default and never keeps the key', async () => {
    const b = new FakeBackend();
    const s = new SettingsStore(b);
    await s.load();
    await s.saveProvider({
      provider: {
        name: 'openai',
        kind: 'openai',
        base_url: 'https://api.openai.com/v1',
        local: false,
        needs_key: true,
        models: ['gpt-4o-mini'],
      },
      api_key: 'sk-secret-1234',
    });
    const [p] = s.providers;
    expect(p).toMatchObject({ name: 'openai', has_key: true, masked_key: '••••1234' });
    expect(JSON.stringify(s.providers)).not.toContain('sk-secret');
    expect(s.settings).toMatchObject({ default_provider: 'openai', default_model: 'gpt-4o-mini' });
  });

  it('reports a failure to load without throwing', async () => {
    const b = new FakeBackend();
    vi.spyOn(b, 'getSettings').mockRejectedValue(new BackendError('unavailable', 'The database is not open.'));
    const s = new SettingsStore(b);
    await s.load();
    expect(s.error).toBe('The database is not open.');
  });
});

describe('approvals store', () => {
  const p = {
    session_id: 's',
    turn_id: 't',
    call_id: 'c1',
    tool: 'write_file',
    args: { path: 'a' },
    side_effects: true,
    guard: 'approval',
    reason: 'writes',
  };

  it('adds, answers and clears approvals', async () => {
    const b = new FakeBackend();
    b.approvals = [p];
    const a = new ApprovalsStore(b);
    await a.load();
    expect(a.items).toHaveLength(1);
    const spy = vi.spyOn(b, 'answerApproval');
    await a.answer('t', 'c1', 'allow_once');
    expect(spy).toHaveBeenCalledWith({ turn_id: 't', call_id: 'c1', answer: 'allow_once' });
    expect(a.items).toHaveLength(0);
    a.add({ ...p, call_id: 'c2' });
    a.clearTurn('t');
    expect(a.items).toHaveLength(0);
  });

  it('tells apart two turns that wait on the same call id', async () => {
    const b = new FakeBackend();
    const a = new ApprovalsStore(b);
    a.add(p);
    a.add({ ...p, turn_id: 'u' });
    expect(a.items).toHaveLength(2);
    const spy = vi.spyOn(b, 'answerApproval').mockResolvedValue();
    await a.answer('u', 'c1', 'deny');
    expect(spy).toHaveBeenCalledWith({ turn_id: 'u', call_id: 'c1', answer: 'deny' });
    expect(a.items.map((x) => x.turn_id)).toEqual(['t']);
  });

  it('keeps the approval with the message when answering fails', async () => {
    const a = new ApprovalsStore(new FakeBackend());
    a.add(p);
    await a.answer('t', 'c1', 'deny');
    expect(a.items[0]).toMatchObject({ answering: false, error: 'That tool call is no longer waiting for an answer.' });
  });
});
