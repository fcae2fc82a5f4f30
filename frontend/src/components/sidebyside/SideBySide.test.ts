// The side-by-side components over the fake backend: the composer's
// targets (chips, Blind), the columns with their headers, a blind column
// naming no model, Stop all, "Continue with this one", and the version
// switcher's "Open side by side"; an approval in a column says which
// column asks.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import ApprovalCard from '../turn/ApprovalCard.svelte';
import { localBackend } from '../../lib/stores/testing';
import { pickModel } from '../ui/combotest';

async function openSession() {
  const b = localBackend('m1', { tick: 20, tokensPerTick: 2 });
  b.providers[0]!.models = ['m1', 'm2'];
  const s = b.addSession('Compare', new Date(Date.now() - 60_000));
  b.addTurn(s.id, 'Capital of France?');
  render(App, { backend: b });
  const nav = await screen.findByRole('navigation', { name: 'Session list' });
  await fireEvent.click(await within(nav).findByRole('button', { name: 'Compare' }));
  await screen.findByRole('article', { name: 'Turn 1' });
  const composer = screen.getByRole('form', { name: 'Message' });
  return { b, composer };
}

/** Opens "Side by side" (the session's model is the first target) and adds m2. */
async function pickTargets(composer: HTMLElement, blind = false) {
  await fireEvent.click(within(composer).getByRole('button', { name: /^Side by side/ }));
  const chips = within(composer).getByRole('list', { name: 'Targets' });
  expect(
    within(chips)
      .getAllByRole('listitem')
      .map((li) => li.textContent?.trim()),
  ).toEqual([expect.stringContaining('m1 · ollama')]);
  await pickModel(within(composer).getByRole('combobox', { name: 'Model to add' }), 'ollama', 'm2');
  await fireEvent.click(within(composer).getByRole('button', { name: 'Add target' }));
  expect(within(chips).getAllByRole('listitem')).toHaveLength(2);
  if (blind) await fireEvent.click(within(composer).getByRole('switch', { name: /Blind/ }));
}

async function send(composer: HTMLElement, text: string) {
  await fireEvent.input(within(composer).getByRole('textbox', { name: 'Message' }), { target: { value: text } });
  await fireEvent.click(within(composer).getByRole('button', { name: 'Send' }));
}

describe('side by side', () => {
  it('sends to the targets picked and shows a column each, which goes on as one conversation with "Continue with this one"', async () => {
    const { b, composer } = await openSession();
    await pickTargets(composer);
    await send(composer, 'Largest city of Japan?');
    const region = await screen.findByRole('article', { name: 'Side by side' });
    const a = within(region).getByRole('region', { name: 'Column A: m1 · ollama' });
    const bcol = within(region).getByRole('region', { name: 'Column B: m2 · ollama' });
    expect(b.calls.find((c) => c.method === 'sendSideBySide')?.args[0]).toMatchObject({
      targets: [
        { provider: 'ollama', model: 'm1' },
        { provider: 'ollama', model: 'm2' },
      ],
    });
    // The shared history stays above, outside the columns.
    expect(within(region).queryByText('Capital of France?')).toBeNull();
    // While a column runs, Stop all shows, and the composer's Stop stops all.
    expect(within(region).getByRole('button', { name: 'Stop all' })).toBeTruthy();
    expect(within(composer).getByRole('button', { name: 'Stop all' })).toBeTruthy();
    await waitFor(() => expect(within(bcol).getByTestId('column-state').textContent).toBe('Done'), { timeout: 10_000 });
    expect(within(a).getByTestId('column-state').textContent).toBe('Done');
    expect(within(composer).getByTestId('to-columns').textContent).toBe('To each of the 2 columns');

    await fireEvent.click(within(bcol).getByRole('button', { name: /^Continue with this one/ }));
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Side by side' })).toBeNull());
    const turn = await screen.findByRole('article', { name: 'Turn 3' });
    expect(within(turn).getByRole('group', { name: 'Versions of this message' }).textContent).toContain('2 / 2');

    await fireEvent.click(within(turn).getByRole('button', { name: 'Open side by side' }));
    const again = await screen.findByRole('article', { name: 'Side by side' });
    expect(within(again).getAllByTestId('column')).toHaveLength(2);
  }, 30_000);

  it('names blind columns A and B and shows no model until the vote; Stop all stops each', async () => {
    const { composer } = await openSession();
    await pickTargets(composer, true);
    await send(composer, 'Largest city of Japan?');
    const region = await screen.findByRole('article', { name: 'Side by side' });
    expect(within(region).getByRole('region', { name: 'Column A' })).toBeTruthy();
    expect(within(region).getByRole('region', { name: 'Column B' })).toBeTruthy();
    await waitFor(() => expect(within(region).getAllByRole('article')).toHaveLength(2));
    expect(region.textContent).not.toMatch(/\bm[12]\b/);
    expect(within(region).queryByRole('button', { name: /Diagnostics/ })).toBeNull();
    await fireEvent.click(within(region).getByRole('button', { name: 'Stop all' }));
    await waitFor(() =>
      expect(
        within(region)
          .getAllByTestId('column-state')
          .map((s) => s.textContent),
      ).toEqual(['Stopped', 'Stopped']),
    );
    expect(region.textContent).not.toMatch(/\bm[12]\b/);
  }, 30_000);

  it('says which column asks for an approval', () => {
    render(ApprovalCard, {
      item: {
        session_id: 's',
        turn_id: 't',
        call_id: 'c',
        tool: 'read_table',
        args: {},
        side_effects: true,
        guard: 'approval',
        reason: '',
        answering: false,
        error: '',
      },
      column: 'B',
      onanswer: () => {},
    });
    expect(screen.getByRole('region', { name: 'Column B asks to run read_table' }).textContent).toContain(
      'Column B asks to run read_table',
    );
  });
});
