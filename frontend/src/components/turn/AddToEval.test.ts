// Add to evaluation from a turn's menu: the case made from the turn is
// shown as YAML to edit, added to a new suite or an existing one (the last
// one used is offered first), and a suite that would not read back shows
// its problems and keeps the dialog, with the text, open.
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { openTurn } from './turntest';

afterEach(() => localStorage.clear());

async function openDialog(turn: HTMLElement) {
  await fireEvent.click(within(turn).getByRole('button', { name: 'More actions' }));
  await fireEvent.click(within(turn).getByRole('menuitem', { name: /Add to evaluation/ }));
  const dialog = await screen.findByRole('dialog', { name: 'Add to evaluation' });
  const yaml = (await within(dialog).findByRole('textbox', { name: /The case/ })) as HTMLTextAreaElement;
  return { dialog, yaml };
}

describe('Add to evaluation', () => {
  it('makes a case of the turn and adds it to a new suite, then to the same one', async () => {
    const { b, turn } = await openTurn();
    const opened = await openDialog(turn);
    let dialog = opened.dialog;
    const yaml = opened.yaml;
    expect(yaml.value).toContain('Capital of France?');
    expect(yaml.value).toContain('similar_to');
    const add = within(dialog).getByRole('button', { name: 'Add to suite' }) as HTMLButtonElement;
    expect(add.disabled).toBe(true); // a new suite needs a name
    await fireEvent.input(within(dialog).getByRole('textbox', { name: 'Name of the new suite' }), {
      target: { value: 'Capitals of Europe' },
    });
    await fireEvent.click(add);
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add to evaluation' })).toBeNull());
    expect(b.calls.find((c) => c.method === 'saveEvalCases')?.args[0]).toMatchObject({ name: 'Capitals of Europe' });
    expect(b.evalSuites_).toMatchObject([{ file: 'capitals-of-europe.yaml', cases: 1 }]);
    await screen.findByText(/Added to Capitals of Europe: 1 case now/);

    // The next time, the suite just used is chosen, and its models are named.
    ({ dialog } = await openDialog(turn));
    const suite = within(dialog).getByRole('combobox', { name: 'Suite' }) as HTMLSelectElement;
    await waitFor(() => expect(suite.value).toBe('capitals-of-europe.yaml'));
    expect(dialog.textContent).toContain("runs on the suite's models: local/qwen3");
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Add to suite' }));
    await waitFor(() => expect(b.evalSuites_[0]?.cases).toBe(2));
  });

  it('shows why a suite would not read back, and keeps the text', async () => {
    const { b, turn } = await openTurn();
    const { dialog, yaml } = await openDialog(turn);
    await fireEvent.input(within(dialog).getByRole('textbox', { name: 'Name of the new suite' }), { target: { value: 'Broken' } });
    await fireEvent.input(yaml, { target: { value: 'name: x\n' } });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Add to suite' }));
    const alert = await within(dialog).findByRole('alert');
    expect(alert.textContent).toContain('Not saved');
    expect(alert.textContent).toContain('line 1:1: The suite has no cases');
    expect(yaml.value).toBe('name: x\n');
    expect(b.evalSuites_).toHaveLength(0);
  });
});
