// The session list grouped by project: pinned first, each project folded
// until opened (and then paged on its own), "No project" last; the fold
// remembered; the filters (tag, archived, one project) as one flat list;
// a session opened shows its project; moves, pins, tags and archive shown
// at once and put back when refused; deleting a project.
import { describe, expect, it, vi } from 'vitest';
import { BackendError } from '../api';
import { FakeBackend } from '../fake';
import type { Prefs } from '../prefs';
import { NO_PROJECT, PINNED_GROUP, SessionsStore, normalTags, SearchStore } from './sessions.svelte';
import { GroupFolds } from './sidebar.svelte';

const now = new Date(2025, 5, 18, 12);

function memoryPrefs(init: Record<string, boolean> = {}): Prefs & { kept: Record<string, boolean> } {
  const kept = { ...init };
  return { kept, flag: (n, f) => kept[n] ?? f, setFlag: (n, on) => (kept[n] = on) };
}

async function seeded() {
  const b = new FakeBackend({ now: () => now });
  const alpha = await b.createProject({ id: '', name: 'Alpha', created_at: '', updated_at: '', settings: {}, sessions: 0 });
  const beta = await b.createProject({ id: '', name: 'Beta', created_at: '', updated_at: '', settings: {}, sessions: 0 });
  const loose = b.addSession('Loose', new Date(2025, 5, 18, 9));
  const a1 = b.addSession('Alpha one', new Date(2025, 5, 18, 8));
  const a2 = b.addSession('Alpha two', new Date(2025, 5, 17, 8));
  const b1 = b.addSession('Beta one', new Date(2025, 5, 16, 8));
  const pinned = b.addSession('Pinned beta', new Date(2025, 4, 1));
  a1.project_id = alpha.id;
  a2.project_id = alpha.id;
  b1.project_id = beta.id;
  pinned.project_id = beta.id;
  pinned.pinned_at = new Date(2025, 5, 1).toISOString();
  b.calls = [];
  return { b, alpha, beta, loose, a1, a2, b1, pinned };
}

const titles = (s: SessionsStore) => s.groups.map((g) => [g.label, g.open, g.items.map((x) => x.title)]);
const lists = (b: FakeBackend) => b.calls.filter((c) => c.method === 'listSessions').map((c) => c.args[0]);

describe('the grouped session list', () => {
  it('puts pinned first, then each project folded with its count, then No project, reading no folded project', async () => {
    const { b } = await seeded();
    const s = new SessionsStore(b, () => now, memoryPrefs());
    await s.refresh();
    expect(titles(s)).toEqual([
      ['Pinned', true, ['Pinned beta']],
      ['Alpha', false, []],
      ['Beta', false, []],
      ['No project', true, ['Loose']],
    ]);
    expect(s.groups.map((g) => g.count)).toEqual([null, 2, 2, null]);
    // The pinned ones (a page of one), No project's first page; no project's own page.
    expect(lists(b)).toEqual([{ limit: 1 }, { limit: 100, project: NO_PROJECT }]);
  });

  it('reads an opened project on its own, pages it, and remembers it open for the next load', async () => {
    const { b, alpha } = await seeded();
    for (let i = 0; i < 60; i++) b.addSession(`Alpha more ${i}`, new Date(2025, 4, 2, 0, i)).project_id = alpha.id;
    const prefs = memoryPrefs();
    const s = new SessionsStore(b, () => now, prefs);
    await s.refresh();
    await s.toggleGroup(alpha.id);
    expect(lists(b).at(-1)).toEqual({ limit: 50, project: alpha.id });
    const group = () => s.groups.find((g) => g.key === alpha.id)!;
    expect(group().open).toBe(true);
    expect(group().items).toHaveLength(50);
    expect(
      group()
        .items.slice(0, 2)
        .map((x) => x.title),
    ).toEqual(['Alpha one', 'Alpha two']);
    expect(group().more).toBe(true);
    await s.more(alpha.id);
    expect(group().items).toHaveLength(62);
    expect(group().more).toBe(false);
    expect(prefs.kept[`sidebar.open.${alpha.id}`]).toBe(true);

    // A reload reads it again with the others, at once.
    b.calls = [];
    const again = new SessionsStore(b, () => now, prefs);
    await again.refresh();
    expect(lists(b)).toContainEqual({ limit: 50, project: alpha.id });
    expect(again.groups.find((g) => g.key === alpha.id)!.items).toHaveLength(50);

    // Folded, it shows nothing and is remembered folded.
    await again.toggleGroup(alpha.id);
    expect(again.groups.find((g) => g.key === alpha.id)!.items).toEqual([]);
    expect(prefs.kept[`sidebar.open.${alpha.id}`]).toBe(false);
  });

  it('is the flat list by date it was when there is no project', async () => {
    const b = new FakeBackend({ now: () => now });
    b.addSession('Old', new Date(2025, 4, 1));
    b.addSession('Today', new Date(2025, 5, 18, 9)).pinned_at = now.toISOString();
    b.addSession('Also today', new Date(2025, 5, 18, 8));
    const s = new SessionsStore(b, () => now, memoryPrefs());
    await s.refresh();
    expect(s.groups.map((g) => [g.key, g.foldable])).toEqual([
      [PINNED_GROUP, true],
      [NO_PROJECT, false],
    ]);
    expect(s.grouped.map((g) => [g.group, g.items.map((x) => x.title)])).toEqual([
      ['Today', ['Also today']],
      ['Older', ['Old']],
    ]);
  });

  it('shows the open session’s project, without keeping that choice', async () => {
    const { b, beta, b1 } = await seeded();
    const prefs = memoryPrefs();
    const s = new SessionsStore(b, () => now, prefs);
    await s.refresh();
    s.upsert(await b.getSession(b1.id));
    s.hold(b1.id);
    await vi.waitFor(() => expect(s.groups.find((g) => g.key === beta.id)!.items.map((x) => x.title)).toEqual(['Beta one']));
    expect(s.groups.find((g) => g.key === beta.id)!.open).toBe(true);
    expect(prefs.kept[`sidebar.open.${beta.id}`]).toBeUndefined();
    // Folding it forgets the reveal.
    await s.toggleGroup(beta.id);
    expect(s.groups.find((g) => g.key === beta.id)!.open).toBe(false);
  });

  it('filters by tag, or to one project, in one flat list with its pinned ones first', async () => {
    const { b, alpha, a2, pinned } = await seeded();
    a2.tags = ['Urgent'];
    pinned.tags = ['urgent'];
    const s = new SessionsStore(b, () => now, memoryPrefs());
    await s.refresh();
    await s.setTag('#urgent');
    expect(lists(b).at(-1)).toEqual({ limit: 100, tag: 'urgent' });
    expect(titles(s)).toEqual([
      ['Pinned', true, ['Pinned beta']],
      ['', true, ['Alpha two']],
    ]);
    expect(s.scope).toEqual({ tag: 'urgent' });
    await s.setTag('');
    await s.setProject(alpha.id);
    expect(lists(b).at(-1)).toEqual({ limit: 100, project: alpha.id });
    expect(titles(s)).toEqual([['', true, ['Alpha one', 'Alpha two']]]);
    expect(s.scope).toEqual({ project: alpha.id });
  });

  it('hides archived sessions unless asked, and keeps that choice', async () => {
    const { b, loose } = await seeded();
    loose.archived_at = now.toISOString();
    const prefs = memoryPrefs();
    const s = new SessionsStore(b, () => now, prefs);
    await s.refresh();
    expect(s.groups.find((g) => g.key === NO_PROJECT)!.items).toEqual([]);
    await s.setShowArchived(true);
    expect(lists(b).at(-1)).toEqual({ limit: 100, archived: true, project: NO_PROJECT });
    expect(s.groups.find((g) => g.key === NO_PROJECT)!.items.map((x) => x.title)).toEqual(['Loose']);
    expect(new SessionsStore(b, () => now, prefs).showArchived).toBe(true);
  });

  it('pins, archives, moves and tags at once, and puts a refused change back', async () => {
    const { b, alpha, loose } = await seeded();
    const s = new SessionsStore(b, () => now, memoryPrefs());
    await s.refresh();
    await s.pin(loose.id, true);
    expect(s.groups[0]!.items.map((x) => x.title)).toEqual(['Loose', 'Pinned beta']);
    await s.move(loose.id, alpha.id);
    expect(s.items.find((x) => x.id === loose.id)!.project_id).toBe(alpha.id);
    expect(s.projects.byId(alpha.id)!.sessions).toBe(3);
    await s.setTags(loose.id, [' b ', '#a', 'A']);
    expect(b.sessions.find((x) => x.id === loose.id)!.tags).toEqual(['a', 'b']);
    await s.archive(loose.id, true);
    expect(s.groups.flatMap((g) => g.items).some((x) => x.id === loose.id)).toBe(false);

    vi.spyOn(b, 'pinSession').mockRejectedValueOnce(new BackendError('unavailable', 'Disk full.'));
    const pinnedBefore = s.items.find((x) => x.title === 'Pinned beta')!.pinned_at;
    await expect(s.pin(s.items.find((x) => x.title === 'Pinned beta')!.id, false)).rejects.toThrow('Disk full.');
    expect(s.items.find((x) => x.title === 'Pinned beta')!.pinned_at).toBe(pinnedBefore);
  });

  it('deletes a project keeping its sessions in No project, or with them', async () => {
    const { b, alpha, beta } = await seeded();
    const s = new SessionsStore(b, () => now, memoryPrefs());
    await s.refresh();
    await s.toggleGroup(alpha.id);
    await s.removeProject(alpha.id, 'keep');
    expect(b.calls.at(-1)).toEqual({ method: 'deleteProject', args: [alpha.id, 'keep'] });
    expect(s.groups.find((g) => g.key === NO_PROJECT)!.items.map((x) => x.title)).toEqual(['Loose', 'Alpha one', 'Alpha two']);
    await s.removeProject(beta.id, 'delete');
    expect(s.items.some((x) => x.title === 'Pinned beta')).toBe(false);
    expect(s.groups.map((g) => g.label)).toEqual(['No project']);
  });
});

describe('GroupFolds', () => {
  it('opens pinned and No project and folds projects until told, and keeps each choice', () => {
    const prefs = memoryPrefs();
    const f = new GroupFolds(prefs);
    expect([f.isOpen(PINNED_GROUP), f.isOpen(NO_PROJECT), f.isOpen('p1')]).toEqual([true, true, false]);
    f.toggle('p1');
    f.toggle(NO_PROJECT);
    expect(new GroupFolds(prefs).isOpen('p1')).toBe(true);
    expect(new GroupFolds(prefs).isOpen(NO_PROJECT)).toBe(false);
  });
});

describe('tags and scoped search', () => {
  it.each([
    [
      ['b', 'a'],
      ['a', 'b'],
    ],
    [[' #x ', 'X', ''], ['x']],
    [
      ['Zed', 'alpha'],
      ['alpha', 'Zed'],
    ],
  ])('keeps %j as %j', (given, want) => {
    expect(normalTags(given)).toEqual(want);
  });

  it('searches within the scope the list shows, and everywhere without one', async () => {
    vi.useFakeTimers();
    try {
      const b = new FakeBackend({ now: () => now });
      const inSpy = vi.spyOn(b, 'searchIn');
      const allSpy = vi.spyOn(b, 'searchSessions');
      const search = new SearchStore(b, 10);
      search.set('hello', { project: 'p1' });
      await vi.runAllTimersAsync();
      expect(inSpy).toHaveBeenCalledWith('hello', 30, { project: 'p1' });
      search.set('hello', {});
      await vi.runAllTimersAsync();
      expect(allSpy).toHaveBeenCalledWith('hello', 30);
    } finally {
      vi.useRealTimers();
    }
  });
});
