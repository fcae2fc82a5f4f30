// The "What changed" store: identical rows folded in runs until opened,
// the totals' differences in words, and an older answer dropped.
import { describe, expect, it } from 'vitest';
import { BackendError } from '../api';
import { diffTurns } from '../fake-diff';
import { rerunPair } from '../fake-diff-fixture';
import type { StepRow, TurnDiff } from '../types';
import { TurnDiffData, foldSame, identical, totalsDelta } from './turndiff.svelte';

const cell = (id: string, text: string, edited = false) => ({
  step_id: id,
  label: id,
  text,
  duration_ms: 0,
  ...(edited ? { edited } : {}),
});
const same = (id: string): StepRow => ({ kind: 'call', a: cell(id, 'x'), b: cell(id, 'x'), same: true });
const changed = (id: string): StepRow => ({ kind: 'call', a: cell(id, 'x'), b: cell(id, 'y'), same: false });

describe('foldSame', () => {
  it('folds each run of identical rows into one item until it is opened', () => {
    const rows = [
      same('call1'),
      same('call2'),
      changed('call3'),
      same('call4'),
      { kind: 'tool', a: cell('tool1', 'r'), same: false } as StepRow,
    ];
    const kinds = (opened: number[]) =>
      foldSame(rows, new Set(opened)).map((it) => (it.kind === 'row' ? `row${it.index}` : `same${it.start}x${it.rows.length}`));
    expect(kinds([])).toEqual(['same0x2', 'row2', 'same3x1', 'row4']);
    expect(kinds([0])).toEqual(['row0', 'row1', 'row2', 'same3x1', 'row4']);
  });

  it('never folds an edited step or a gap', () => {
    expect(identical({ kind: 'tool', a: cell('tool1', 'r'), b: cell('tool1', 'r', true), same: true })).toBe(false);
    expect(identical({ kind: 'tool', b: cell('tool1', 'r'), same: true })).toBe(false);
    expect(identical(same('call1'))).toBe(true);
  });
});

describe('totalsDelta', () => {
  const t = { calls: 2, tools: 1, input_tokens: 100, output_tokens: 20, duration_ms: 1500 };
  it('says what B spent more or less than A', () => {
    expect(totalsDelta(t, { ...t, input_tokens: 200, output_tokens: 40, duration_ms: 1200 })).toEqual(['+120 tokens', '−300 ms']);
    expect(totalsDelta(t, { ...t, calls: 3, tools: 0, duration_ms: 2500 })).toEqual([
      'same tokens',
      '+1 call',
      '−1 tool result',
      '+1.00 s',
    ]);
    expect(totalsDelta({ ...t, cost_usd: 0.01 }, { ...t, cost_usd: 0.004 })).toEqual(['same tokens', '−$0.0060', 'same time']);
  });
});

describe('TurnDiffData', () => {
  it('loads a diff, opens runs, and keeps only the newest answer', async () => {
    const { a, aEvents, b, bEvents } = rerunPair();
    const d = diffTurns(a, aEvents, b, bEvents);
    let release: (v: TurnDiff) => void = () => {};
    const slow = new Promise<TurnDiff>((r) => (release = r));
    const asked: string[] = [];
    const data = new TurnDiffData({
      diffTurns: (x, y) => {
        asked.push(`${x}/${y}`);
        if (x === 'old') return slow;
        if (x === 'gone') return Promise.reject(new BackendError('not_found', 'There is no turn gone.'));
        return Promise.resolve(d);
      },
    });
    const first = data.load('old', 'tb');
    await data.load('ta', 'tb');
    release({ ...d, from: 'stale' });
    await first;
    expect(data.diff?.from).toBe('tool1');
    expect(data.loading).toBe(false);
    expect(data.items.map((it) => it.kind)).toEqual(['row', 'row', 'row', 'same']);
    data.open(3);
    expect(data.items.map((it) => it.kind)).toEqual(['row', 'row', 'row', 'row', 'row']);

    await data.load('gone', 'tb');
    expect(data.diff).toBeNull();
    expect(data.error).toContain('There is no turn gone.');
    expect(asked).toEqual(['old/tb', 'ta/tb', 'gone/tb']);
  });
});
