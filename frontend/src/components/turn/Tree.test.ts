// The conversation as a tree, through the window over the fake backend:
// edit a message (a new version in its place, ‹ 2 / 2 ›), switch back to
// the first version and its continuation, ArrowUp to edit the last
// message, regenerate, Continue after Stop (one answer, and Continue is
// gone), fork (the new session links back), and delete a version after a
// confirmation that counts what goes.
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';

const errors: unknown[] = [];
const onError = (e: ErrorEvent) => errors.push(e.error ?? e.message);

afterEach(() => {
  window.removeEventListener('error', onError);
  expect(errors).toEqual([]);
  errors.length = 0;
});

/** A session with two finished turns, open. */
async function openApp() {
  const b = new FakeBackend({ tick: 5, tokensPerTick: 50 });
  b.settings.default_provider = 'ollama';
  b.settings.default_model = 'llama3.2:3b';
  const s = b.addSession('Trees', new Date(Date.now() - 60_000));
  b.addTurn(s.id, 'Hello there');
  b.addTurn(s.id, 'Tell me about trees');
  window.addEventListener('error', onError);
  render(App, { backend: b });
  const nav = await screen.findByRole('navigation', { name: 'Session list' });
  await fireEvent.click(await within(nav).findByRole('button', { name: 'Trees' }));
  await screen.findByRole('article', { name: 'Turn 2' });
  return { b, sessionId: s.id };
}

const feed = () => screen.getByRole('feed');
const messages = () => [...feed().querySelectorAll('article')].map((a) => a.querySelector('.bubble')?.textContent ?? '');
const ended = (b: FakeBackend) => waitFor(() => expect([...b.turns.values()].some((t) => t.state === 'running')).toBe(false));

describe('turn tree', () => {
  it('edits a message into a new version, switches between versions, and keeps the switch', async () => {
    const { b, sessionId } = await openApp();
    const firstId = [...b.turns.values()].find((t) => t.seq === 1)?.id;
    const first = screen.getByRole('article', { name: 'Turn 1' });
    await fireEvent.click(within(first).getByRole('button', { name: 'Edit this message' }));
    const box = within(first).getByRole('textbox', { name: 'Edit your message' });
    await fireEvent.input(box, { target: { value: 'Hello again' } });
    await fireEvent.keyDown(box, { key: 'Enter' });
    await ended(b);
    // The new version replaces the old branch: one turn, 2 of 2.
    await waitFor(() => expect(messages()).toEqual(['Hello again']));
    const v2 = screen.getByRole('article', { name: 'Turn 3' });
    expect(within(v2).getByRole('group', { name: 'Versions of this message' }).textContent).toContain('2 / 2');
    expect(b.calls.find((c) => c.method === 'sendMessage')?.args[0]).toMatchObject({ message: 'Hello again', version_of: firstId });

    // Back to the first version: its whole continuation comes back.
    await fireEvent.click(within(v2).getByRole('button', { name: 'Previous version' }));
    await waitFor(() => expect(messages()).toEqual(['Hello there', 'Tell me about trees']));
    const v1 = screen.getByRole('article', { name: 'Turn 1' });
    expect(within(v1).getByRole('group', { name: 'Versions of this message' }).textContent).toContain('1 / 2');
    // The store keeps it: the active branch ends at the second turn.
    expect(b.sessions.find((x) => x.id === sessionId)?.active_turn_id).toBe([...b.turns.values()].find((t) => t.seq === 2)?.id);
  });

  it('ArrowUp in the empty composer edits the last message; Regenerate makes another version', async () => {
    const { b } = await openApp();
    const composer = screen.getByRole('textbox', { name: /Message/ });
    await fireEvent.keyDown(composer, { key: 'ArrowUp' });
    const last = screen.getByRole('article', { name: 'Turn 2' });
    const box = await within(last).findByRole('textbox', { name: 'Edit your message' });
    expect((box as HTMLTextAreaElement).value).toBe('Tell me about trees');
    await fireEvent.keyDown(box, { key: 'Escape' });
    expect(within(last).queryByRole('textbox', { name: 'Edit your message' })).toBeNull();

    await fireEvent.click(within(last).getByRole('button', { name: /Regenerate/ }));
    await ended(b);
    await waitFor(() => expect(messages()).toEqual(['Hello there', 'Tell me about trees']));
    const v2 = screen.getByRole('article', { name: 'Turn 3' });
    expect(within(v2).getByRole('group', { name: 'Versions of this message' }).textContent).toContain('2 / 2');
  });

  it('Continue after Stop shows one answer with a mark where it resumed, and is gone after', async () => {
    const b = new FakeBackend({ tick: 40, tokensPerTick: 1 });
    b.providers = [
      {
        name: 'ollama',
        kind: 'ollama',
        base_url: 'http://127.0.0.1:11434/v1',
        local: true,
        needs_key: false,
        models: ['llama3.2:3b'],
        has_key: false,
        masked_key: '',
      },
    ];
    b.settings.default_provider = 'ollama';
    b.settings.default_model = 'llama3.2:3b';
    const s = b.addSession('Long', new Date(Date.now() - 60_000));
    window.addEventListener('error', onError);
    render(App, { backend: b });
    const nav = await screen.findByRole('navigation', { name: 'Session list' });
    await fireEvent.click(await within(nav).findByRole('button', { name: 'Long' }));
    const composer = await screen.findByRole('textbox', { name: /Message/ });
    await fireEvent.input(composer, { target: { value: 'Write a long story' } });
    await fireEvent.keyDown(composer, { key: 'Enter' });
    const turn = await screen.findByRole('article', { name: 'Turn 1' });
    await fireEvent.click(await within(turn).findByRole('button', { name: /Stop/ }));
    await ended(b);
    await fireEvent.click(await within(turn).findByRole('button', { name: /Continue/ }));
    const cont = await screen.findByRole('article', { name: 'Turn 2' });
    expect(within(cont).getByText('Resumed')).toBeTruthy();
    expect(cont.querySelector('.bubble')).toBeNull();
    expect(b.calls.find((c) => c.method === 'sendMessage' && (c.args[0] as { continue?: string }).continue)).toBeTruthy();
    await ended(b);
    expect(within(turn).queryByRole('button', { name: /Continue/ })).toBeNull();
    expect([...b.turns.values()].find((t) => t.seq === 2)).toMatchObject({ continues: true, session_id: s.id });
  });

  it('forks from a turn into a session that links back', async () => {
    const { b, sessionId } = await openApp();
    const first = screen.getByRole('article', { name: 'Turn 1' });
    await fireEvent.click(within(first).getByRole('button', { name: 'More actions' }));
    await fireEvent.click(within(first).getByRole('menuitem', { name: /Fork from here/ }));
    const link = await screen.findByRole('button', { name: /Forked from “Trees”/ });
    await waitFor(() => expect(messages()).toEqual(['Hello there']));
    await fireEvent.click(link);
    await waitFor(() => expect(messages()).toEqual(['Hello there', 'Tell me about trees']));
    expect(b.calls.filter((c) => c.method === 'forkSession')).toHaveLength(1);
    expect(b.sessions.find((x) => x.forked_from_session === sessionId)).toBeTruthy();
  });

  it('deletes a turn with what follows it after saying how many go', async () => {
    const { b } = await openApp();
    const first = screen.getByRole('article', { name: 'Turn 1' });
    await fireEvent.click(within(first).getByRole('button', { name: 'More actions' }));
    await fireEvent.click(within(first).getByRole('menuitem', { name: /Delete/ }));
    const dialog = await screen.findByRole('dialog', { name: 'Delete this turn?' });
    expect(dialog.textContent).toContain('2 in all');
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Delete 2 turns' }));
    await waitFor(() => expect(b.turns.size).toBe(0));
    await waitFor(() => expect(screen.queryByRole('article')).toBeNull());
  });
});
