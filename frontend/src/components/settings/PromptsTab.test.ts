// Settings → Prompts: add a prompt with a scope, edit it, see a name its
// scope has refused, delete it after asking, import a file (and a broken
// one, refused at its line), and export.
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';

async function open() {
  const b = new FakeBackend();
  await b.createProject({ id: '', name: 'Work', created_at: '', updated_at: '', settings: {}, sessions: 0 });
  render(App, { backend: b });
  await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }));
  const dialog = await screen.findByRole('dialog', { name: 'Settings' });
  await fireEvent.click(within(dialog).getByRole('tab', { name: 'Prompts' }));
  const panel = within(dialog).getByRole('tabpanel');
  await within(panel).findByText(/No prompts yet/);
  return { b, panel: within(panel) };
}

async function fillIn(form: HTMLElement, fields: Record<string, string>) {
  for (const [label, value] of Object.entries(fields)) {
    const el = within(form).getByLabelText(label) as HTMLInputElement | HTMLSelectElement;
    if (el instanceof HTMLSelectElement) await fireEvent.change(el, { target: { value } });
    else await fireEvent.input(el, { target: { value } });
  }
}

describe('Settings → Prompts', () => {
  it('adds, edits and deletes prompts', async () => {
    const { b, panel } = await open();
    await fireEvent.click(panel.getByRole('button', { name: 'New prompt' }));
    let form = panel.getByRole('form', { name: 'New prompt' });
    const work = b.projects[0]!.id;
    await fillIn(form, { Name: 'Standup', Scope: work, Text: 'Yesterday I {{did}}.' });
    expect(within(form).getByText('Asks for {{did}} when used.')).toBeTruthy();
    await fireEvent.click(within(form).getByRole('button', { name: 'Save prompt' }));
    const list = await panel.findByRole('list', { name: 'Saved prompts' });
    await waitFor(() => expect(within(list).getByText('Standup')).toBeTruthy());
    expect(within(list).getByText('Work')).toBeTruthy();

    // The same name in the same scope is refused, with the backend's words.
    await fireEvent.click(panel.getByRole('button', { name: 'New prompt' }));
    form = panel.getByRole('form', { name: 'New prompt' });
    await fillIn(form, { Name: 'standup', Scope: work, Text: 'x' });
    await fireEvent.click(within(form).getByRole('button', { name: 'Save prompt' }));
    expect((await within(form).findByRole('alert')).textContent).toContain('already a prompt named "standup" in this project');
    await fireEvent.click(within(form).getByRole('button', { name: 'Cancel' }));

    await fireEvent.click(panel.getByRole('button', { name: 'Edit prompt Standup' }));
    form = panel.getByRole('form', { name: 'Edit prompt Standup' });
    await fillIn(form, { Name: 'Daily standup', Scope: '' });
    await fireEvent.click(within(form).getByRole('button', { name: 'Save prompt' }));
    await waitFor(() => expect(b.library.prompts.map((p) => [p.name, p.project_id])).toEqual([['Daily standup', '']]));
    expect(within(list).getByText('Global')).toBeTruthy();

    await fireEvent.click(panel.getByRole('button', { name: 'Delete prompt Daily standup' }));
    const confirm = await screen.findByRole('dialog', { name: 'Delete prompt?' });
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(b.library.prompts).toEqual([]));
  });

  it('imports a file, reports what it did, refuses a broken one, and exports', async () => {
    const { b, panel } = await open();
    const input = document.querySelector<HTMLInputElement>('input[type="file"][accept*="yaml"]')!;
    const choose = async (content: string) => {
      const file = new File([content], 'prompts.yaml', { type: 'application/yaml' });
      Object.defineProperty(input, 'files', { value: [file], configurable: true });
      await fireEvent.change(input);
    };
    await choose('version: 1\nprompts:\n  - name: Broken\n');
    expect((await panel.findByRole('alert')).textContent).toMatch(/prompts.yaml: The file was not imported/);
    expect(b.library.prompts).toEqual([]);

    await choose(
      'version: 1\nprompts:\n  - name: Review\n    project: work\n    body: |\n      Review {{diff}}\n  - name: Lost\n    project: Nowhere\n    body: x\n',
    );
    const status = await panel.findByRole('status');
    await waitFor(() => expect(status.textContent).toContain('Imported: 1 created, 0 updated, 1 skipped.'));
    expect(status.textContent).toContain('Lost (Nowhere): there is no project of that name here');
    await panel.findByText('Review');

    const url = vi.fn(() => 'blob:prompts');
    Object.assign(URL, { createObjectURL: url, revokeObjectURL: () => {} });
    await fireEvent.click(panel.getByRole('button', { name: 'Export' }));
    await waitFor(() => expect(url).toHaveBeenCalled());
    expect(b.calls.some((c) => c.method === 'exportPrompts' && c.args[0] === '*')).toBe(true);
  });
});
