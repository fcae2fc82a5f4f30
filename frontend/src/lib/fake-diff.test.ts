// The fake's DiffTurns: a re-run compared with its original from the step
// it was re-run from, aligned by kind with gaps, the edited step marked,
// texts diffed word by word and each side's totals added up.
import { describe, expect, it } from 'vitest';
import { FakeBackend } from './fake';
import { diffTurns, stepsOf } from './fake-diff';
import { rerunPair } from './fake-diff-fixture';

describe('fake diffTurns', () => {
  it('aligns a re-run with its original from the edited step', () => {
    const { a, aEvents, b, bEvents } = rerunPair();
    const d = diffTurns(a, aEvents, b, bEvents);
    expect(d.from).toBe('tool1');
    expect(d.a.turn_id).toBe(a.id);
    expect(d.b.turn_id).toBe(b.id);
    expect(d.rows!.map((r) => [r.kind, r.a?.step_id ?? '', r.b?.step_id ?? '', r.same])).toEqual([
      ['tool', 'tool1', 'tool1', false],
      ['call', 'call2', 'call2', false],
      ['tool', 'tool2', '', false],
      ['call', 'call3', 'call3', true],
      ['call', 'call4', 'call4', true],
    ]);
    const [tool1, call2] = d.rows!;
    expect(tool1!.b!.edited).toBe(true);
    expect(tool1!.a!.edited).toBeUndefined();
    expect(call2!.ops).toEqual([
      { op: 'equal', text: 'There are ' },
      { op: 'delete', text: '3' },
      { op: 'insert', text: '5' },
      { op: 'equal', text: ' rows in the table.' },
    ]);
    expect(call2!.a).toMatchObject({ label: 'Model call 2', input_tokens: 200, output_tokens: 20, duration_ms: 2000 });
    expect(d.a.totals).toEqual({ calls: 3, tools: 2, input_tokens: 400, output_tokens: 40, duration_ms: 4040 });
    expect(d.b.totals).toEqual({ calls: 3, tools: 1, input_tokens: 610, output_tokens: 42, duration_ms: 3520 });
  });

  it('marks the steps before live_from as recorded', () => {
    const { bEvents } = rerunPair();
    expect(stepsOf(bEvents).map((s) => [s.cell.step_id, !!s.cell.recorded])).toEqual([
      ['call1', true],
      ['tool1', false],
      ['call2', false],
      ['call3', false],
      ['call4', false],
    ]);
  });

  it('compares two turns that are not a re-run from their start', async () => {
    const f = new FakeBackend();
    const s = await f.createSession({});
    const one = f.addTurn(s.id, 'remember this');
    const two = f.addTurn(s.id, 'remember that');
    const d = await f.diffTurns(one.id, two.id);
    expect(d.from).toBe('start');
    expect(d.rows!.length).toBeGreaterThan(0);
    expect(d.rows!.every((r) => r.a && r.b)).toBe(true);
    await expect(f.diffTurns(one.id, 'nope')).rejects.toThrow(/no turn nope/);
  });
});
