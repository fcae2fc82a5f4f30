// The sidebar's projects in the whole shell (fake backend): group headers
// that fold (aria-expanded) and remember it, a row's menu (pin, move,
// archive), the tag editor's keys, the delete-project dialog's counts, and
// `#/p/<project>` keeping the list to one project.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { shellBackend } from './sidebartest';
import TagEditor from './TagEditor.svelte';
import DeleteProjectDialog from './DeleteProjectDialog.svelte';

const at = new Date(2025, 5, 18, 9);

async function backend() {
  const b = shellBackend();
  const p = await b.createProject({ id: '', name: 'Garden', created_at: '', updated_at: '', settings: {}, sessions: 0 });
  b.addSession('Loose end', at);
  b.addSession('Tomatoes', at).project_id = p.id;
  b.addSession('Compost', new Date(2025, 5, 17)).project_id = p.id;
  return { b, p };
}

afterEach(() => {
  history.replaceState(null, '', '/');
  localStorage.clear();
});

async function openMenu(list: HTMLElement, label: string) {
  await fireEvent.click(within(list).getByRole('button', { name: label }));
  return screen.findByRole('menu');
}

describe('sidebar projects', () => {
  it('folds a project until opened, loads it then, and remembers it open', async () => {
    const { b, p } = await backend();
    const first = render(App, { backend: b });
    const list = await screen.findByRole('navigation', { name: 'Session list' });
    const header = await within(list).findByRole('button', { name: /^Garden\s*, 2 sessions$/ });
    expect(header.getAttribute('aria-expanded')).toBe('false');
    expect(document.getElementById(header.getAttribute('aria-controls')!)!.hidden).toBe(true);
    expect(within(list).queryByRole('button', { name: 'Tomatoes' })).toBeNull();
    await fireEvent.click(header);
    expect(await within(list).findByRole('button', { name: 'Tomatoes' })).toBeTruthy();
    expect(header.getAttribute('aria-expanded')).toBe('true');
    expect(b.calls.some((c) => c.method === 'listSessions' && (c.args[0] as { project?: string }).project === p.id)).toBe(true);
    first.unmount();

    render(App, { backend: b });
    const again = await screen.findByRole('navigation', { name: 'Session list' });
    expect(await within(again).findByRole('button', { name: 'Tomatoes' })).toBeTruthy();
  });

  it('pins, moves and archives from a row’s menu', async () => {
    const { b } = await backend();
    render(App, { backend: b });
    const list = await screen.findByRole('navigation', { name: 'Session list' });
    await within(list).findByRole('button', { name: 'Loose end' });

    let menu = await openMenu(list, 'More actions for Loose end');
    await fireEvent.click(within(menu).getByRole('menuitem', { name: 'Pin to the top' }));
    expect(await within(list).findByRole('button', { name: 'pinned Loose end' })).toBeTruthy();
    expect(within(list).getByRole('button', { name: /^Pinned/ })).toBeTruthy();

    menu = await openMenu(list, 'More actions for Loose end');
    await fireEvent.click(within(menu).getByRole('menuitem', { name: 'Move to project…' }));
    const dialog = await screen.findByRole('dialog', { name: 'Move “Loose end” to…' });
    expect(
      within(dialog)
        .getByRole('button', { name: /No project/ })
        .getAttribute('aria-current'),
    ).toBe('true');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Garden' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(b.sessions.find((s) => s.title === 'Loose end')!.project_id).not.toBe('');
    expect(await within(list).findByRole('button', { name: /^Garden\s*, 3 sessions$/ })).toBeTruthy();

    menu = await openMenu(list, 'More actions for Loose end');
    expect(within(menu).getByRole('menuitem', { name: 'Unpin' })).toBeTruthy();
    await fireEvent.click(within(menu).getByRole('menuitem', { name: 'Archive' }));
    await waitFor(() => expect(within(list).queryByRole('button', { name: /Loose end/ })).toBeNull());
    await fireEvent.click(screen.getByRole('button', { name: 'Show archived sessions' }));
    expect(await within(list).findByRole('button', { name: /Loose end.*Archived/ })).toBeTruthy();
  });

  it('keeps the list to the project the address names, and searches there', async () => {
    const { b, p } = await backend();
    history.replaceState(null, '', `#/p/${p.id}`);
    render(App, { backend: b });
    const list = await screen.findByRole('navigation', { name: 'Session list' });
    expect(await within(list).findByRole('button', { name: 'Tomatoes' })).toBeTruthy();
    expect(within(list).queryByRole('button', { name: 'Loose end' })).toBeNull();
    expect(screen.getByTestId('project-scope').textContent).toContain('Garden');
    const spy = vi.spyOn(b, 'searchIn');
    await fireEvent.input(screen.getByRole('searchbox', { name: 'Search sessions' }), { target: { value: 'tomato' } });
    await waitFor(() => expect(spy).toHaveBeenCalledWith('tomato', 30, { project: p.id }));
    await fireEvent.click(screen.getByRole('button', { name: 'Show all' }));
    await waitFor(() => expect(location.hash).toBe(''));
  });
});

describe('TagEditor', () => {
  it('adds a tag on Enter, takes the last off on Backspace, and removes one by its button', async () => {
    const r = render(TagEditor, { tags: ['one'], known: [{ tag: 'two', sessions: 3 }] });
    const box = screen.getByRole('combobox', { name: 'Add a tag' });
    await fireEvent.input(box, { target: { value: '#Two ' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    await fireEvent.input(box, { target: { value: 'three' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    const chips = () => screen.getAllByRole('listitem').map((x) => x.textContent?.trim());
    expect(chips()).toEqual(['one', 'three', 'Two']);
    await fireEvent.keyDown(box, { key: 'Backspace' });
    expect(chips()).toEqual(['one', 'three']);
    await fireEvent.click(screen.getByRole('button', { name: 'Remove tag one' }));
    expect(chips()).toEqual(['three']);
    expect(document.activeElement).toBe(box);
    r.unmount();
  });
});

describe('DeleteProjectDialog', () => {
  const project = (n: number) => ({ id: 'p1', name: 'Garden', created_at: '', updated_at: '', settings: {}, sessions: n });

  it.each([
    [0, 'The project has no sessions.', ['Cancel', 'Delete project']],
    [1, 'The project has 1 session.', ['Cancel', 'Move them to No project', 'Delete them too (1 session)']],
    [12, 'The project has 12 sessions.', ['Cancel', 'Move them to No project', 'Delete them too (12 sessions)']],
  ])('with %i sessions says so and offers what to do', (n, says, buttons) => {
    render(DeleteProjectDialog, { project: project(n), ondelete: vi.fn(), onclose: vi.fn() });
    expect(screen.getByTestId('delete-project-message').textContent).toContain(says);
    const dialog = screen.getByRole('dialog');
    expect(
      within(dialog)
        .getAllByRole('button')
        .map((x) => x.textContent?.trim())
        .filter(Boolean),
    ).toEqual(buttons);
  });

  it('deletes keeping the sessions, or with them', async () => {
    const ondelete = vi.fn().mockResolvedValue(undefined);
    render(DeleteProjectDialog, { project: project(2), ondelete, onclose: vi.fn() });
    await fireEvent.click(screen.getByRole('button', { name: 'Delete them too (2 sessions)' }));
    expect(ondelete).toHaveBeenCalledWith('delete');
    await fireEvent.click(screen.getByRole('button', { name: 'Move them to No project' }));
    expect(ondelete).toHaveBeenCalledWith('keep');
  });
});
