// The vote bar: the outcomes it sends for two and for four columns, its
// keys (and that they never fire while typing), the names shown once the
// group is re-read after the vote, Change vote, the evaluation case of the
// preferred answer, and a refusal shown in words.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import { FakeBackend } from '../../lib/fake';
import type { TurnState, Vote } from '../../lib/types';
import Harness from './votebartest.svelte';

const targets = ['llama3.2:3b · ollama', 'gpt-4o · openai', 'qwen3 · local', 'mistral · local'];

/** A blind group of n finished columns in a session of the fake. */
function seeded(n: number, states: TurnState[] = []) {
  const b = new FakeBackend();
  const s = b.addSession('Arena', new Date());
  const turns = Array.from({ length: n }, () => b.addTurn(s.id, 'Explain closures'));
  b.arena.addGroup({
    id: 'g1',
    session_id: s.id,
    blind: true,
    targets: targets.slice(0, n).map((t) => ({ model: t.split(' · ')[0]!, provider: t.split(' · ')[1]! })),
    created_at: new Date().toISOString(),
    columns: turns.map((t, i) => ({ slot: i, turn_id: t.id, target: targets[i]!, state: states[i] ?? 'completed' })),
  });
  return { b, turns };
}

function voted(b: FakeBackend): Vote {
  const c = b.calls.filter((x) => x.method === 'voteOnGroup').at(-1);
  return c?.args[0] as Vote;
}

describe('VoteBar', () => {
  it('offers A or B better, tie and both bad for two columns, and sends the winner turn', async () => {
    const { b, turns } = seeded(2);
    render(Harness, { backend: b, groupId: 'g1' });
    const bar = await screen.findByRole('region', { name: 'Which answer is better?' });
    const names = within(bar)
      .getAllByRole('button')
      .map((x) => x.textContent?.trim());
    expect(names).toEqual(['A is better1', 'B is better2', 'TieT', 'Both are badX']);
    await fireEvent.input(within(bar).getByRole('textbox', { name: /Note/ }), { target: { value: '  clearer  ' } });
    await fireEvent.click(within(bar).getByRole('button', { name: /B is better/ }));
    await screen.findByRole('region', { name: 'Your vote' });
    expect(voted(b)).toMatchObject({ group_id: 'g1', outcome: 'win', winner_turn_id: turns[1]!.id, note: 'clearer', blind: true });
  });

  it('offers Best of four, tie and all bad; tie and all bad name no turn', async () => {
    const { b, turns } = seeded(4);
    render(Harness, { backend: b, groupId: 'g1' });
    const bar = await screen.findByRole('region', { name: 'Which answer is best?' });
    expect(within(bar).getAllByRole('button', { name: /^Best: [ABCD]/ })).toHaveLength(4);
    await fireEvent.click(within(bar).getByRole('button', { name: /Best: D/ }));
    expect(voted(b)).toMatchObject({ outcome: 'win', winner_turn_id: turns[3]!.id });

    await fireEvent.click(await screen.findByRole('button', { name: 'Change vote' }));
    await fireEvent.click(await screen.findByRole('button', { name: /^Tie/ }));
    await waitFor(() => expect(voted(b)).toMatchObject({ outcome: 'tie' }));
    expect(voted(b).winner_turn_id).toBeUndefined();

    await fireEvent.click(await screen.findByRole('button', { name: 'Change vote' }));
    await fireEvent.click(await screen.findByRole('button', { name: /All are bad/ }));
    await waitFor(() => expect(voted(b)).toMatchObject({ outcome: 'both_bad' }));
    expect(b.arena.votes.get('g1')?.outcome).toBe('both_bad');
  });

  it('votes by keys shown on the buttons, but not while typing in the note or elsewhere', async () => {
    const { b, turns } = seeded(3);
    render(Harness, { backend: b, groupId: 'g1' });
    const bar = await screen.findByRole('region', { name: 'Which answer is best?' });
    expect(
      within(bar)
        .getByRole('button', { name: /Best: B/ })
        .getAttribute('aria-keyshortcuts'),
    ).toBe('2');
    expect(bar.textContent).toContain('Keys:');

    // Typing in the note, or in another text field (the composer), votes nothing.
    const note = within(bar).getByRole('textbox', { name: /Note/ });
    await fireEvent.keyDown(note, { key: '2' });
    await fireEvent.keyDown(note, { key: 't' });
    await fireEvent.keyDown(screen.getByRole('textbox', { name: 'Message' }), { key: 'x' });
    // A key with a modifier is someone else's shortcut.
    await fireEvent.keyDown(document.body, { key: '1', ctrlKey: true });
    expect(b.calls.some((c) => c.method === 'voteOnGroup')).toBe(false);

    await fireEvent.keyDown(document.body, { key: '3' });
    await screen.findByRole('region', { name: 'Your vote' });
    expect(voted(b)).toMatchObject({ outcome: 'win', winner_turn_id: turns[2]!.id });
    // Focus lands on Change vote, so the keyboard goes on from there.
    expect(document.activeElement?.textContent).toBe('Change vote');

    // Voted: the keys do nothing until Change vote.
    await fireEvent.keyDown(document.body, { key: 't' });
    expect(b.calls.filter((c) => c.method === 'voteOnGroup')).toHaveLength(1);
    await fireEvent.click(screen.getByRole('button', { name: 'Change vote' }));
    await fireEvent.keyDown(document.body, { key: 'T' });
    await waitFor(() => expect(voted(b)).toMatchObject({ outcome: 'tie' }));
  });

  it('shows the names once the group is re-read, and makes an evaluation case of the winner', async () => {
    const { b, turns } = seeded(2);
    const seen: Vote[] = [];
    render(Harness, { backend: b, groupId: 'g1', onvoted: (v: Vote) => seen.push(v) });
    const bar = await screen.findByRole('region', { name: 'Which answer is better?' });
    expect(bar.textContent).not.toContain('gpt-4o');
    await fireEvent.click(within(bar).getByRole('button', { name: /A is better/ }));
    const result = await screen.findByTestId('vote-result');
    expect(seen).toHaveLength(1);
    expect(result.textContent).toContain('llama3.2:3b · ollama is better');
    expect(result.textContent).toContain('voted blind');

    await fireEvent.click(screen.getByRole('button', { name: 'Make an evaluation case' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add to evaluation' });
    await within(dialog).findByRole('textbox', { name: /The case/ });
    expect(b.calls.find((c) => c.method === 'evalCaseFromTurn')?.args[0]).toBe(turns[0]!.id);
  });

  it('says a tie has no preferred answer to make a case of', async () => {
    const { b } = seeded(2);
    render(Harness, { backend: b, groupId: 'g1' });
    await fireEvent.click(await screen.findByRole('button', { name: /^Tie/ }));
    expect((await screen.findByTestId('vote-no-case')).textContent).toContain('no preferred answer');
    expect(screen.queryByRole('button', { name: 'Make an evaluation case' })).toBeNull();
  });

  it('shows a refusal in words and keeps the choices', async () => {
    const { b } = seeded(2);
    render(Harness, { backend: b, groupId: 'g1' });
    const bar = await screen.findByRole('region', { name: 'Which answer is better?' });
    // The column is running again by the time the vote reaches the backend.
    b.arena.groups.get('g1')!.columns![1]!.state = 'running';
    await fireEvent.click(within(bar).getByRole('button', { name: /A is better/ }));
    expect((await within(bar).findByRole('alert')).textContent).toContain('Wait for every answer to finish');
    expect(within(bar).getByRole('button', { name: /A is better/ })).toBeTruthy();
    expect(b.arena.votes.size).toBe(0);
  });

  it('is not shown while a column runs', async () => {
    const { b } = seeded(2, ['completed', 'running']);
    render(Harness, { backend: b, groupId: 'g1' });
    await screen.findByRole('textbox', { name: 'Message' });
    expect(screen.queryByTestId('vote-bar')).toBeNull();
  });

  it('is shown when the turns have ended though the group was read while they ran', async () => {
    const { b } = seeded(2, ['running', 'running']);
    render(Harness, { backend: b, groupId: 'g1', live: true });
    await screen.findByRole('region', { name: 'Which answer is better?' });
  });

  it('refuses a note over 4000 bytes before asking the backend', async () => {
    const { b } = seeded(2);
    render(Harness, { backend: b, groupId: 'g1' });
    const bar = await screen.findByRole('region', { name: 'Which answer is better?' });
    await fireEvent.input(within(bar).getByRole('textbox', { name: /Note/ }), { target: { value: 'é'.repeat(2001) } });
    expect(bar.textContent).toContain('4002 / 4000 bytes');
    await fireEvent.click(within(bar).getByRole('button', { name: /A is better/ }));
    expect((await within(bar).findByRole('alert')).textContent).toContain('The note is too long (4002 bytes; at most 4000)');
    expect(b.calls.some((c) => c.method === 'voteOnGroup')).toBe(false);
  });
});
