// "Re-run from here" over the fake backend: the fake's steps (as
// backend/timeline.Steps), the reducer's live_from, the store's run, and
// the editor (which changes each kind of step takes, Esc, a refusal that
// keeps the edit), then the new version with its divider.
import { describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { BackendError } from '../../lib/api';
import { FakeBackend } from '../../lib/fake';
import { fakeTurnSteps } from '../../lib/fake-timetravel';
import { phraseOfId, stepLabel, stepsOfBlocks } from '../../lib/steps';
import { createApp } from '../../lib/stores/app.svelte';
import { applyEvent, applyEvents } from '../../lib/stores/reducer';
import { emptyTurn } from '../../lib/stores/turnview';
import type { AgentEvent } from '../../lib/types';

/** A session with one finished turn that read a table with a tool. */
function backend() {
  const b = new FakeBackend({ tick: 2, tokensPerTick: 50 });
  const s = b.addSession('Regions', new Date(Date.now() - 60_000));
  const t = b.addTurn(s.id, 'Use a tool to read the table');
  return { b, s, t };
}

async function openTurn() {
  const { b, t } = backend();
  render(App, { backend: b });
  const nav = await screen.findByRole('navigation', { name: 'Session list' });
  await fireEvent.click(await within(nav).findByRole('button', { name: 'Regions' }));
  const turn = await screen.findByRole('article', { name: 'Turn 1' });
  return { b, t, turn };
}

describe('the fake turnSteps', () => {
  it('numbers steps as timeline.Steps: start, calls, tools, with what was recorded before each', () => {
    const { b, t } = backend();
    const steps = fakeTurnSteps(b.events.get(t.id)!);
    expect(steps.map((s) => s.id)).toEqual(['start', 'call1', 'tool1', 'call2']);
    const tool = steps[2]!;
    expect(tool).toMatchObject({ kind: 'tool', n: 1, tool: 'read_table', call_id: 'call-1', recorded_calls: 1, tools: 0 });
    expect(steps[3]).toMatchObject({ kind: 'call', n: 2, recorded_calls: 1, tools: 1, recorded: true });
    expect(stepLabel(tool)).toBe('Tool result 1: read_table');
  });

  it('marks the steps after a live_from as live', async () => {
    const { b, t } = backend();
    const ref = await b.rerunFrom({
      turn_id: t.id,
      step: 'tool1',
      edit: { kind: 'tool_result', text: 'north,99' },
      no_side_effects: false,
    });
    await vi.waitFor(() => expect(b.turns.get(ref.turn_id)!.state).toBe('completed'));
    const steps = fakeTurnSteps(b.events.get(ref.turn_id)!);
    expect(steps.map((s) => [s.id, !!s.live])).toEqual([
      ['start', false],
      ['call1', false],
      ['tool1', true],
      ['call2', true],
    ]);
  });
});

describe('the fake rerunFrom', () => {
  it('runs a new version whose edited tool result is the tool card and the answer, after a live_from', async () => {
    const { b, t } = backend();
    const ref = await b.rerunFrom({
      turn_id: t.id,
      step: 'tool1',
      edit: { kind: 'tool_result', text: 'north,99' },
      no_side_effects: false,
    });
    await vi.waitFor(() => expect(b.turns.get(ref.turn_id)!.state).toBe('completed'));
    const turn = b.turns.get(ref.turn_id)!;
    expect(turn).toMatchObject({ parent_turn_id: t.parent_turn_id, from_turn_id: t.id, from_step: 'tool1', from_edit: 'tool_result' });
    const evs = b.events.get(ref.turn_id)!;
    const types = evs.map((e) => e.type);
    expect(types.indexOf('live_from')).toBeLessThan(types.indexOf('tool_result'));
    expect(evs.find((e) => e.type === 'live_from')!.data).toMatchObject({ from_turn_id: t.id, from_step: 'tool1', edit: 'tool_result' });
    const view = applyEvents(emptyTurn(ref.turn_id), evs);
    expect(view.blocks.find((x) => x.kind === 'tool')).toMatchObject({ output: 'north,99', status: 'ok' });
    expect(turn.final_text).toContain('The tool said: north,99');
  });

  it.each([
    ['a reply edit at a tool step', 'tool1', { kind: 'reply' as const, text: 'x' }, 'does not fit tool1'],
    ['a tool result at the start', 'start', { kind: 'tool_result' as const, text: 'x' }, 'does not fit start'],
    ['an empty message', 'start', { kind: 'message' as const, text: ' ' }, 'The edited message is empty'],
    ['a step the turn does not have', 'tool9', {}, 'has no step tool9'],
  ])('refuses %s', async (_name, step, edit, want) => {
    const { b, t } = backend();
    await expect(b.rerunFrom({ turn_id: t.id, step, edit, no_side_effects: false })).rejects.toThrow(want);
  });
});

describe('the reducer', () => {
  it('draws live_from as a block where it happened', () => {
    const ev = {
      id: 'e9',
      seq: 9,
      type: 'live_from',
      stage_id: '',
      data: { from_turn_id: 't1', from_step: 'tool1', edit: 'tool_result', recorded_calls: 1, recorded_tools: 0 },
    } as AgentEvent;
    const v = applyEvent(emptyTurn('t2'), ev);
    expect(v.blocks).toEqual([{ kind: 'livefrom', id: 'e9', stageId: '', data: ev.data }]);
  });

  it('names the model call that streamed each text block, for its step', () => {
    const { b, t } = backend();
    const evs = b.events.get(t.id)!;
    const view = applyEvents(emptyTurn(t.id), evs);
    const byBlock = stepsOfBlocks(view, fakeTurnSteps(evs));
    const ids = view.blocks.map((x) => `${x.kind}:${byBlock.get(x.id)?.id ?? ''}`);
    expect(ids).toEqual(['tool:tool1', 'text:call2']);
    expect(phraseOfId('tool1')).toBe('tool result 1');
  });
});

describe('the store', () => {
  it('shows the re-run as a new version of the turn, and throws a refusal', async () => {
    const { b, s, t } = backend();
    const app = createApp(b, { raf: (cb) => cb() });
    await app.openSession(s.id);
    await vi.waitFor(() => expect(app.conversation.ids).toEqual([t.id]));
    const id = await app.timetravel.run({ turn_id: t.id, step: 'call2', edit: { kind: 'reply', text: 'Typed.' }, no_side_effects: true });
    expect(app.conversation.ids).toEqual([id]);
    expect(app.conversation.versions[id]).toEqual([t.id, id]);
    expect(app.turns.summary(id)).toMatchObject({ from_turn_id: t.id, from_step: 'call2', from_edit: 'reply' });
    expect(b.calls.find((c) => c.method === 'rerunFrom')?.args[0]).toMatchObject({ no_side_effects: true });
    await expect(
      app.timetravel.run({ turn_id: t.id, step: 'call2', edit: { kind: 'tool_result', text: 'x' }, no_side_effects: false }),
    ).rejects.toThrow('does not fit');
  });
});

describe('the editor', () => {
  it('offers Re-run from here on the tool card and the answer, named by step', async () => {
    const { turn } = await openTurn();
    expect(await within(turn).findByRole('button', { name: 'Re-run from here (tool result 1: read_table)' })).toBeTruthy();
    expect(within(turn).getByRole('button', { name: 'Re-run from here (model call 2)' })).toBeTruthy();
  });

  it('offers the changes each kind of step takes, prefilled from the original', async () => {
    const { turn } = await openTurn();
    await fireEvent.click(await within(turn).findByRole('button', { name: 'Re-run from here (tool result 1: read_table)' }));
    const dialog = await screen.findByRole('dialog', { name: 'Re-run from here' });
    const radios = () =>
      within(dialog)
        .getAllByRole('radio')
        .map((r) => r.closest('label')!.textContent!.trim());
    expect(radios()).toEqual(['What the tool returned', 'No change']);
    expect((within(dialog).getByRole('textbox', { name: 'Tool result' }) as HTMLTextAreaElement).value).toBe(
      'region,growth\nnorth,12\nsouth,4',
    );
    expect(within(dialog).getByRole('switch', { name: 'No side effects' })).toHaveProperty('checked', false);

    const step = within(dialog).getByRole('combobox', { name: 'Step' });
    await fireEvent.change(step, { target: { value: 'call2' } });
    expect(radios()).toEqual(['What the model said', 'Model and sampling from here on', 'No change']);
    expect((within(dialog).getByRole('textbox', { name: 'Reply' }) as HTMLTextAreaElement).value).toContain('Here is what I found.');
    await fireEvent.click(within(dialog).getByRole('radio', { name: 'Model and sampling from here on' }));
    expect(within(dialog).getByRole('spinbutton', { name: 'Temperature' })).toBeTruthy();

    await fireEvent.change(step, { target: { value: 'start' } });
    expect(radios()).toEqual(['The message', 'The system prompt', 'No change']);
    expect((within(dialog).getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement).value).toBe('Use a tool to read the table');
  });

  it('closes on Esc, giving the focus back to the button', async () => {
    const { turn } = await openTurn();
    const button = await within(turn).findByRole('button', { name: 'Re-run from here (tool result 1: read_table)' });
    button.focus();
    await fireEvent.click(button);
    const dialog = await screen.findByRole('dialog', { name: 'Re-run from here' });
    await fireEvent.keyDown(dialog, { key: 'Escape' });
    dialog.dispatchEvent(new Event('close'));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Re-run from here' })).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(button));
  });

  it('shows a refusal in the dialog and keeps the edit', async () => {
    const { b, turn } = await openTurn();
    vi.spyOn(b, 'rerunFrom').mockRejectedValueOnce(new BackendError('conflict', 'A turn is already running in this session.'));
    await fireEvent.click(await within(turn).findByRole('button', { name: 'Re-run from here (tool result 1: read_table)' }));
    const dialog = await screen.findByRole('dialog', { name: 'Re-run from here' });
    const box = within(dialog).getByRole('textbox', { name: 'Tool result' });
    await fireEvent.input(box, { target: { value: 'north,99' } });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Run' }));
    expect((await within(dialog).findByRole('alert')).textContent).toContain('A turn is already running in this session.');
    expect((box as HTMLTextAreaElement).value).toBe('north,99');
  });

  it('runs the edit: the new version streams with the divider and the edited result', async () => {
    const { b, t } = await openTurn();
    await fireEvent.click(await screen.findByRole('button', { name: 'Re-run from here (tool result 1: read_table)' }));
    const dialog = await screen.findByRole('dialog', { name: 'Re-run from here' });
    await fireEvent.input(within(dialog).getByRole('textbox', { name: 'Tool result' }), { target: { value: 'north,99' } });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Run' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Re-run from here' })).toBeNull());
    const turn = await screen.findByRole('article', { name: 'Turn 2' });
    const divider = await within(turn).findByTestId('live-from');
    expect(divider.textContent?.replace(/\s+/g, ' ')).toContain("Steps above: from turn #1's recording · live from tool result 1");
    expect(divider.textContent).toContain('(edited: tool result)');
    const link = within(divider).getByRole('link', { name: 'What changed' });
    const id = b.calls.filter((c) => c.method === 'rerunFrom').length ? [...b.turns.keys()].pop() : '';
    expect(link.getAttribute('href')).toBe(`#/diff/${t.id}/${id}`);
    await waitFor(() =>
      expect(within(turn).getByTestId('rerun-origin').textContent?.replace(/\s+/g, ' ').trim()).toBe(
        'Re-run from tool result 1: read_table of #1',
      ),
    );
    await waitFor(() => expect(within(turn).getByRole('region', { name: 'Result of read_table' }).textContent).toBe('north,99'));
  });
});
