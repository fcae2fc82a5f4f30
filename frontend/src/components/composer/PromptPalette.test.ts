// The `/` palette, by keyboard only: "/" at the start of the message opens
// it, typing filters, the arrows move, Enter picks, Escape closes and
// leaves the "/"; a prompt with variables asks for them (the first field
// focused, Enter fills, Escape cancels); the commands do what the
// composer's own controls do.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';
import { localBackend } from '../../lib/stores/testing';
import type { SendRequest } from '../../lib/types';

async function setup() {
  const b = localBackend('llama3.2:3b', { tick: 5, tokensPerTick: 50 });
  const work = await b.createProject({ id: '', name: 'Work', created_at: '', updated_at: '', settings: {}, sessions: 0 });
  const home = await b.createProject({ id: '', name: 'Home', created_at: '', updated_at: '', settings: {}, sessions: 0 });
  const p = (name: string, body: string, project_id = '', description = '') =>
    b.library.save({ id: '', project_id, name, description, body, created_at: '', updated_at: '', variables: [] });
  p('Summarize', 'Sum up {{text}} in {{ words }} words.', '', 'A short summary');
  p('Greeting', 'Hello there.');
  p('Standup', 'What I did yesterday:', work.id);
  p('Shopping', 'Milk, eggs', home.id);
  const s = b.addSession('In Work', new Date(Date.now() - 60_000));
  s.project_id = work.id;
  render(App, { backend: b });
  const nav = await screen.findByRole('navigation', { name: 'Session list' });
  // Its project's group starts folded: open it, then the session.
  const group = await within(nav).findByRole('button', { name: /^Work/ });
  if (group.getAttribute('aria-expanded') !== 'true') await fireEvent.click(group);
  await fireEvent.click(await within(nav).findByRole('button', { name: 'In Work' }));
  const composer = screen.getByRole('form', { name: 'Message' });
  const box = within(composer).getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement;
  box.focus();
  return { b, s, composer, box };
}

async function type(box: HTMLTextAreaElement, text: string) {
  await fireEvent.input(box, { target: { value: text } });
}

const key = (el: HTMLElement, k: string) => fireEvent.keyDown(el, { key: k });
const options = () =>
  [...(screen.queryByRole('listbox', { name: 'Prompts and commands' })?.querySelectorAll('[role="option"]') ?? [])].map((o) =>
    o.textContent?.replace(/\s+/g, ' ').trim(),
  );
const active = (box: HTMLElement) =>
  document.getElementById(box.getAttribute('aria-activedescendant') ?? '')?.querySelector('.label')?.textContent;
const sent = (b: FakeBackend) => b.calls.filter((c) => c.method === 'sendMessage').map((c) => (c.args[0] as SendRequest).message);

describe('the prompt palette', () => {
  it("opens on '/' with the global prompts, the session's project's, and the commands", async () => {
    const { box } = await setup();
    await type(box, '/');
    const list = await screen.findByRole('listbox', { name: 'Prompts and commands' });
    await waitFor(() => expect(within(list).getAllByRole('option').length).toBe(7));
    const labels = [...list.querySelectorAll('.label')].map((l) => l.textContent);
    expect(labels).toEqual(['Greeting', 'Standup', 'Summarize', 'New session', 'Switch model…', 'Switch workflow…', 'Attach file…']);
    expect(box.getAttribute('aria-controls')).toBe(list.id);
    expect(box.getAttribute('aria-autocomplete')).toBe('list');
    expect(active(box)).toBe('Greeting');
  });

  it('opens only at the start of the message', async () => {
    const { box } = await setup();
    await type(box, 'a /');
    expect(screen.queryByRole('listbox', { name: 'Prompts and commands' })).toBeNull();
  });

  it('filters as you type, moves with the arrows, and Enter puts a prompt without variables in the message', async () => {
    const { b, box } = await setup();
    await type(box, '/');
    await waitFor(() => expect(options().length).toBe(7));
    await type(box, '/s');
    await waitFor(() => expect(options().map((o) => o?.split(' ')[0])).toEqual(['Standup', 'Summarize', 'New', 'Switch', 'Switch']));
    await type(box, '/gre');
    expect(options()).toEqual(['Greeting']);
    await type(box, '/');
    await key(box, 'ArrowDown');
    expect(active(box)).toBe('Standup');
    await key(box, 'ArrowUp');
    await key(box, 'ArrowUp');
    expect(active(box)).toBe('Attach file…');
    await key(box, 'ArrowDown');
    expect(active(box)).toBe('Greeting');
    await key(box, 'Enter');
    await waitFor(() => expect(box.value).toBe('Hello there.'));
    expect(screen.queryByRole('listbox', { name: 'Prompts and commands' })).toBeNull();
    expect(sent(b)).toEqual([]);
    expect(document.activeElement).toBe(box);
  });

  it('Escape closes it and leaves the "/", and it stays closed until the "/" goes', async () => {
    const { b, box } = await setup();
    await type(box, '/sum');
    await screen.findByRole('listbox', { name: 'Prompts and commands' });
    await key(box, 'Escape');
    expect(screen.queryByRole('listbox', { name: 'Prompts and commands' })).toBeNull();
    expect(box.value).toBe('/sum');
    expect(box.hasAttribute('aria-activedescendant')).toBe(false);
    await type(box, '/summ');
    expect(screen.queryByRole('listbox', { name: 'Prompts and commands' })).toBeNull();
    // Enter now sends the text as it is.
    await key(box, 'Enter');
    await waitFor(() => expect(sent(b)).toEqual(['/summ']));
    await type(box, '');
    await type(box, '/');
    await screen.findByRole('listbox', { name: 'Prompts and commands' });
  });

  it('asks for the variables of a prompt, fills it on Enter, and goes back to the list on Escape', async () => {
    const { b, box } = await setup();
    await type(box, '/summ');
    await waitFor(() => expect(active(box)).toBe('Summarize'));
    await key(box, 'Enter');
    const form = await screen.findByRole('dialog', { name: 'Summarize' });
    const text = within(form).getByRole('textbox', { name: 'text' });
    const words = within(form).getByRole('textbox', { name: 'words' });
    await waitFor(() => expect(document.activeElement).toBe(text));
    await key(text, 'Escape');
    expect(screen.queryByRole('dialog', { name: 'Summarize' })).toBeNull();
    expect(box.value).toBe('/summ');
    await waitFor(() => expect(document.activeElement).toBe(box));
    await screen.findByRole('listbox', { name: 'Prompts and commands' });

    await type(box, '/summa');
    await waitFor(() => expect(active(box)).toBe('Summarize'));
    await key(box, 'Enter');
    const again = await screen.findByRole('dialog', { name: 'Summarize' });
    await fireEvent.input(within(again).getByRole('textbox', { name: 'text' }), { target: { value: 'the tides' } });
    await fireEvent.input(within(again).getByRole('textbox', { name: 'words' }), { target: { value: '20' } });
    await key(within(again).getByRole('textbox', { name: 'words' }), 'Enter');
    await waitFor(() => expect(box.value).toBe('Sum up the tides in 20 words.'));
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(sent(b)).toEqual([]);
    expect(words).toBeTruthy();
  });

  it('runs its commands: attach opens the attach panel, switch model opens the model list', async () => {
    const { composer, box } = await setup();
    await type(box, '/attach');
    await waitFor(() => expect(active(box)).toBe('Attach file…'));
    await key(box, 'Enter');
    const choose = await within(composer).findByRole('button', { name: 'Choose files…' });
    await waitFor(() => expect(document.activeElement).toBe(choose));
    expect(box.value).toBe('');

    box.focus();
    await type(box, '/model');
    await waitFor(() => expect(active(box)).toBe('Switch model…'));
    await key(box, 'Enter');
    const picker = within(composer).getByRole('combobox', { name: 'Model' });
    await waitFor(() => expect(document.activeElement).toBe(picker));
    expect(picker.getAttribute('aria-expanded')).toBe('true');
  });

  it('runs New session', async () => {
    const { s, box } = await setup();
    await type(box, '/new');
    await waitFor(() => expect(active(box)).toBe('New session'));
    await key(box, 'Enter');
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Turn 1' })).toBeNull());
    expect(document.querySelector('.main h1')?.textContent).not.toBe(s.title);
  });
});
