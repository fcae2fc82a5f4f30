// The settings layers in the window: a session's own (from its header), a
// project's (its dialog) and the app's (Settings → Defaults). Each field
// says where its value comes from, Reset makes it inherit again, a value
// the Go side would refuse shows its words under the field and is not
// saved, and the keyboard reaches everything.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';
import { localBackend } from '../../lib/stores/testing';
import type { Session } from '../../lib/types';

const at = new Date(2025, 5, 18, 9);

async function backend() {
  const b = localBackend('m1');
  b.settings.defaults = { temperature: 0.7, max_tokens: 800 };
  Object.assign(b, { uiReady: vi.fn().mockResolvedValue(undefined) });
  const p = await b.createProject({
    id: '',
    name: 'Research',
    created_at: '',
    updated_at: '',
    sessions: 0,
    settings: { instructions: 'Cite sources.', top_p: 0.9 },
  });
  const s = b.addSession('Regions', at, 1);
  s.project_id = p.id;
  s.settings = { temperature: 0.3 };
  return { b, s, p };
}

/** Opens the app on the session (by its address), then its settings from the header. */
async function openSessionSettings(b: FakeBackend, s: Session) {
  history.replaceState(null, '', `/#/s/${s.id}`);
  render(App, { backend: b });
  await screen.findByRole('heading', { level: 1, name: s.title });
  await fireEvent.click(screen.getByRole('button', { name: 'Session settings' }));
  return screen.findByRole('dialog', { name: 'Session settings' });
}

/** The line under a field that says where its value comes from. */
function originOf(field: HTMLElement): string {
  const about = field.getAttribute('aria-describedby')!.split(' ')[0]!;
  return document.getElementById(about)!.querySelector('[data-testid="origin"]')!.textContent!;
}

afterEach(() => {
  history.replaceState(null, '', '/');
  localStorage.clear();
});

describe('session settings', () => {
  it('shows a badge for what the session sets, and where each value comes from', async () => {
    const { b, s } = await backend();
    const dialog = await openSessionSettings(b, s);
    expect(screen.getByTestId('session-own-settings').textContent).toBe('T 0.3');
    const d = within(dialog);
    expect(originOf(d.getByRole('spinbutton', { name: 'Temperature' }))).toBe('set here');
    expect(originOf(d.getByRole('spinbutton', { name: 'Top-p' }))).toBe('from project Research');
    expect(originOf(d.getByRole('spinbutton', { name: 'Max output tokens' }))).toBe('from app defaults');
    expect(originOf(d.getByRole('spinbutton', { name: 'Seed' }))).toBe("not set: the server's default");
    const instructions = d.getByRole('textbox', { name: 'Instructions (system prompt)' }) as HTMLTextAreaElement;
    expect(originOf(instructions)).toBe('from project Research');
    expect(instructions.value).toBe('');
    expect(instructions.placeholder).toBe('Cite sources.');
    // Inherited values are hints, not this layer's values.
    expect((d.getByRole('spinbutton', { name: 'Top-p' }) as HTMLInputElement).placeholder).toBe('0.9');
    expect(d.queryByRole('button', { name: 'Reset top-p' })).toBeNull();
  });

  it('resets a field to inherit, moving focus to it, and saves the session as loaded with the new settings', async () => {
    const { b, s } = await backend();
    const dialog = await openSessionSettings(b, s);
    const d = within(dialog);
    const temp = d.getByRole('spinbutton', { name: 'Temperature' }) as HTMLInputElement;
    await fireEvent.click(d.getByRole('button', { name: 'Reset temperature' }));
    await waitFor(() => expect(originOf(temp)).toBe('from app defaults'));
    expect(temp.value).toBe('');
    await waitFor(() => expect(document.activeElement).toBe(temp));
    expect(d.queryByRole('button', { name: 'Reset temperature' })).toBeNull();

    await fireEvent.input(d.getByRole('textbox', { name: 'Instructions (system prompt)' }), { target: { value: 'Answer in French.' } });
    await fireEvent.input(d.getByRole('spinbutton', { name: 'Seed' }), { target: { value: '42' } });
    await fireEvent.change(d.getByRole('combobox', { name: 'Reasoning effort' }), { target: { value: 'high' } });
    await fireEvent.click(d.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Session settings' })).toBeNull());
    const call = b.calls.filter((c) => c.method === 'updateSession').at(-1)!;
    const sent = call.args[0] as Session;
    expect(sent).toMatchObject({ id: s.id, title: s.title, provider: 'ollama', model: s.model, project_id: s.project_id });
    expect(sent.settings).toEqual({ instructions: 'Answer in French.', seed: 42, reasoning_effort: 'high' });
    expect(b.sessions.find((x) => x.id === s.id)!.settings).toEqual(sent.settings);
    await waitFor(() => expect(screen.getByTestId('session-own-settings').textContent).toBe('Instructions · seed 42 · effort high'));
  });

  it('shows what is wrong in the Go side’s words and does not save it', async () => {
    const { b, s } = await backend();
    const d = within(await openSessionSettings(b, s));
    const temp = d.getByRole('spinbutton', { name: 'Temperature' });
    await fireEvent.input(temp, { target: { value: '3' } });
    const problem = await d.findByText('temperature must be between 0 and 2 (got 3)');
    expect(temp.getAttribute('aria-invalid')).toBe('true');
    expect(temp.getAttribute('aria-describedby')).toContain(problem.id);
    await fireEvent.input(d.getByRole('spinbutton', { name: 'Max output tokens' }), { target: { value: '0' } });
    expect(await d.findByText('max output tokens must be at least 1 (got 0)')).toBeTruthy();

    const before = b.calls.filter((c) => c.method === 'updateSession').length;
    await fireEvent.click(d.getByRole('button', { name: 'Save' }));
    expect((await d.findByRole('alert')).textContent).toContain('nothing was saved');
    expect(b.calls.filter((c) => c.method === 'updateSession').length).toBe(before);

    // Put right, it saves.
    await fireEvent.input(temp, { target: { value: '1.2' } });
    await fireEvent.input(d.getByRole('spinbutton', { name: 'Max output tokens' }), { target: { value: '' } });
    await waitFor(() => expect(d.queryByText(/must be/)).toBeNull());
    await fireEvent.click(d.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(b.sessions.find((x) => x.id === s.id)!.settings).toEqual({ temperature: 1.2 }));
  });

  it('takes stop sequences from the keyboard, and can send no instructions over the project’s', async () => {
    const { b, s } = await backend();
    const d = within(await openSessionSettings(b, s));
    const input = d.getByRole('textbox', { name: 'Stop sequences' });
    for (const stop of ['END', '\\n\\n']) {
      await fireEvent.input(input, { target: { value: stop } });
      await fireEvent.keyDown(input, { key: 'Enter' });
    }
    const chips = d.getByRole('list', { name: 'Stop sequences' });
    expect(
      within(chips)
        .getAllByRole('listitem')
        .map((li) => li.querySelector('code')!.textContent),
    ).toEqual(['END', '\\n\\n']);
    await fireEvent.click(within(chips).getByRole('button', { name: 'Remove stop sequence END' }));
    expect(document.activeElement).toBe(input);
    expect(within(chips).getAllByRole('listitem')).toHaveLength(1);

    await fireEvent.click(d.getByRole('button', { name: 'Send no instructions here' }));
    expect(originOf(d.getByRole('textbox', { name: 'Instructions (system prompt)' }))).toBe('set here: none');
    await fireEvent.click(d.getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(b.sessions.find((x) => x.id === s.id)!.settings).toEqual({ temperature: 0.3, stop: ['\n\n'], instructions: '' }),
    );
  });

  it('opens the project’s defaults from a session in it', async () => {
    const { b, s } = await backend();
    const d = within(await openSessionSettings(b, s));
    await fireEvent.click(d.getByRole('button', { name: 'Edit project Research’s defaults' }));
    expect(await screen.findByRole('dialog', { name: 'Project settings: Research' })).toBeTruthy();
    expect(screen.queryByRole('dialog', { name: 'Session settings' })).toBeNull();
  });
});

describe('project settings', () => {
  async function openProject() {
    const { b, s, p } = await backend();
    await openSessionSettings(b, s);
    await fireEvent.click(await screen.findByRole('button', { name: 'Edit project Research’s defaults' }));
    return { b, p, d: within(await screen.findByRole('dialog', { name: 'Project settings: Research' })) };
  }

  it('edits the name, model, workflow, instructions, sampling and limits, each over the app defaults', async () => {
    const { b, p, d } = await openProject();
    expect((d.getByRole('textbox', { name: 'Name' }) as HTMLInputElement).value).toBe('Research');
    expect(originOf(d.getByRole('textbox', { name: 'Instructions (system prompt)' }))).toBe('set here');
    expect(originOf(d.getByRole('spinbutton', { name: 'Temperature' }))).toBe('from app defaults');
    expect(originOf(d.getByRole('spinbutton', { name: 'Max steps (model calls)' }))).toBe('not set: 25');
    expect(d.getByRole('group', { name: 'Model' })).toBeTruthy();

    await fireEvent.input(d.getByRole('textbox', { name: 'Name' }), { target: { value: 'Field research' } });
    await fireEvent.change(d.getByRole('combobox', { name: 'Workflow' }), { target: { value: 'chat' } });
    await fireEvent.input(d.getByRole('spinbutton', { name: 'Max steps (model calls)' }), { target: { value: '12' } });
    await fireEvent.input(d.getByRole('spinbutton', { name: 'Timeout (seconds)' }), { target: { value: '90' } });
    await fireEvent.click(d.getByRole('button', { name: 'Reset top-p' }));
    await fireEvent.click(d.getByRole('button', { name: 'Save' }));

    await waitFor(() => expect(b.projects[0]!.name).toBe('Field research'));
    const saved = b.projects.find((x) => x.id === p.id)!.settings;
    expect(saved).toEqual({
      instructions: 'Cite sources.',
      workflow: 'chat',
      limits: { max_steps: 12, max_tool_calls: 0, token_budget: 0, timeout: 90e9, stall_threshold: 0, max_tool_output: 0 },
    });
    // The sidebar lists it under its new name.
    const nav = screen.getByRole('navigation', { name: 'Session list' });
    await waitFor(() => expect(within(nav).getByRole('button', { name: /^Field research/ })).toBeTruthy());
  });

  it('refuses what the Go side would, and an empty name', async () => {
    const { b, d } = await openProject();
    await fireEvent.input(d.getByRole('spinbutton', { name: 'Top-p' }), { target: { value: '0' } });
    expect(await d.findByText('top-p must be above 0 and at most 1 (got 0)')).toBeTruthy();
    await fireEvent.input(d.getByRole('spinbutton', { name: 'Max tool calls' }), { target: { value: '-2' } });
    expect(await d.findByText('limits cannot be negative')).toBeTruthy();
    await fireEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(b.calls.some((c) => c.method === 'updateProject')).toBe(false);

    await fireEvent.input(d.getByRole('spinbutton', { name: 'Top-p' }), { target: { value: '' } });
    await fireEvent.input(d.getByRole('spinbutton', { name: 'Max tool calls' }), { target: { value: '' } });
    await fireEvent.input(d.getByRole('textbox', { name: 'Name' }), { target: { value: ' ' } });
    await fireEvent.click(d.getByRole('button', { name: 'Save' }));
    expect(await d.findByText('A project needs a name.')).toBeTruthy();
    expect(b.calls.some((c) => c.method === 'updateProject')).toBe(false);
  });
});

describe('Settings → Defaults', () => {
  async function openDefaults() {
    const { b } = await backend();
    render(App, { backend: b });
    await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }));
    const dialog = await screen.findByRole('dialog', { name: 'Settings' });
    await fireEvent.click(within(dialog).getByRole('tab', { name: 'Defaults & limits' }));
    return { b, d: within(await within(dialog).findByRole('region', { name: 'Instructions and sampling' })), dialog: within(dialog) };
  }

  it('edits the app’s instructions and sampling, the lowest layer', async () => {
    const { b, d, dialog } = await openDefaults();
    const temp = d.getByRole('spinbutton', { name: 'Temperature' }) as HTMLInputElement;
    expect(temp.value).toBe('0.7');
    expect(originOf(temp)).toBe('set here');
    expect(originOf(d.getByRole('spinbutton', { name: 'Top-p' }))).toBe("not set: the server's default");
    await fireEvent.input(d.getByRole('textbox', { name: 'Instructions (system prompt)' }), { target: { value: 'Be brief.' } });
    await fireEvent.click(d.getByRole('button', { name: 'Reset max output tokens' }));
    await fireEvent.click(dialog.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(b.settings.defaults).toEqual({ temperature: 0.7, instructions: 'Be brief.' }));
  });

  it('does not save a value the Go side would refuse', async () => {
    const { b, d, dialog } = await openDefaults();
    await fireEvent.input(d.getByRole('spinbutton', { name: 'Max output tokens' }), { target: { value: '0' } });
    expect(await d.findByText('max output tokens must be at least 1 (got 0)')).toBeTruthy();
    await fireEvent.click(dialog.getByRole('button', { name: 'Save' }));
    expect(await dialog.findByText(/nothing was saved/)).toBeTruthy();
    expect(b.calls.some((c) => c.method === 'saveSettings')).toBe(false);
  });
});
