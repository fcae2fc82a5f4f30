// MeterFeed.follow: the meter's inputs are derived in the class, and the
// backend is asked from the class's timer, not from a component's effect.
import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Meter, MeterRequest } from '../types';
import { MeterFeed, type MeterInputs } from './meter.svelte';

const reading = (req: MeterRequest): Meter => ({
  provider: 'p',
  model: 'm',
  window: { tokens: 100, source: 'default' },
  parts: [{ name: 'draft', tokens: req.draft.length }],
  total: req.draft.length,
  method: 'estimate',
  state: 'ok',
  history_messages: 0,
});

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('MeterFeed.follow', () => {
  it('asks when the draft changes, holds while a turn runs, asks at once when it ends, and stops with its owner', async () => {
    const ask = vi.fn(async (req: MeterRequest) => reading(req));
    const feed = new MeterFeed(ask, 250);
    const state = $state({ draft: '', running: false, turn: 't1' });
    const stop = $effect.root(() =>
      feed.follow((): MeterInputs => ({
        req: { session_id: 's', draft: state.draft },
        running: state.running,
        settled: `s|${state.turn}`,
      })),
    );
    flushSync();
    // Nothing asked from the effect itself: the timer asks.
    expect(ask).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(0);
    expect(ask).toHaveBeenCalledTimes(1);

    for (const d of ['h', 'hi']) {
      state.draft = d;
      flushSync();
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(ask).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(250);
    expect(ask).toHaveBeenLastCalledWith({ session_id: 's', draft: 'hi' });
    expect(feed.meter?.total).toBe(2);

    // A turn starts (a new newest turn) and runs: no question while it runs.
    state.running = true;
    state.turn = 't2';
    state.draft = '';
    flushSync();
    await vi.runAllTimersAsync();
    expect(ask).toHaveBeenCalledTimes(2);
    // It ends: asked at once, the conversation changed.
    state.running = false;
    flushSync();
    await vi.advanceTimersByTimeAsync(0);
    expect(ask).toHaveBeenCalledTimes(3);
    expect(ask).toHaveBeenLastCalledWith({ session_id: 's', draft: '' });

    state.draft = 'later';
    flushSync();
    stop();
    await vi.runAllTimersAsync();
    expect(ask).toHaveBeenCalledTimes(3);
  });
});
