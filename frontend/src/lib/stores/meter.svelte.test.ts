// The context meter is asked a quarter second after the last change to
// the draft, at once when there is nothing shown yet or the conversation
// changed, and an answer that comes back after a newer question is dropped.
// MeterFeed.follow: the meter's inputs are derived in the class, and the
// backend is asked from the class's timer, not from a component's effect.
import { flushSync } from 'svelte';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Meter, MeterRequest } from '../types';
import { MeterFeed, type MeterInputs } from './meter.svelte';

const reading = (req: MeterRequest, total = req.draft.length): Meter => ({
  provider: 'p',
  model: 'm',
  window: { tokens: 100, source: 'default' },
  parts: [{ name: 'draft', tokens: total }],
  total,
  method: 'estimate',
  state: 'ok',
  history_messages: 0,
});

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('MeterFeed', () => {
  it('asks at once first, then once after typing pauses', async () => {
    const ask = vi.fn(async (req: MeterRequest) => reading(req));
    const feed = new MeterFeed(ask, 250);
    feed.request({ session_id: 's', draft: '' });
    await vi.runAllTimersAsync();
    expect(ask).toHaveBeenCalledTimes(1);
    for (const draft of ['h', 'he', 'hel', 'hell', 'hello']) {
      feed.request({ session_id: 's', draft });
      await vi.advanceTimersByTimeAsync(100);
    }
    expect(ask).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(250);
    expect(ask).toHaveBeenCalledTimes(2);
    expect(ask).toHaveBeenLastCalledWith({ session_id: 's', draft: 'hello' });
    expect(feed.meter?.total).toBe(5);
  });

  it('asks again at once when told the conversation changed, and not for the same draft otherwise', async () => {
    const ask = vi.fn(async (req: MeterRequest) => reading(req));
    const feed = new MeterFeed(ask, 250);
    feed.request({ session_id: 's', draft: 'a' });
    await vi.runAllTimersAsync();
    feed.request({ session_id: 's', draft: 'a' });
    await vi.runAllTimersAsync();
    expect(ask).toHaveBeenCalledTimes(1);
    feed.request({ session_id: 's', draft: 'a' }, true);
    await Promise.resolve();
    expect(ask).toHaveBeenCalledTimes(2);
  });

  it('keeps only the newest answer, and clears when there is nothing to count', async () => {
    let release: (m: Meter) => void = () => {};
    const ask = vi.fn((req: MeterRequest) =>
      req.draft === 'slow' ? new Promise<Meter>((r) => (release = r)) : Promise.resolve(reading(req)),
    );
    const feed = new MeterFeed(ask, 250);
    feed.request({ session_id: 's', draft: 'slow' });
    feed.request({ session_id: 's', draft: 'quick' }, true);
    await vi.runAllTimersAsync();
    expect(feed.meter?.total).toBe(5);
    release(reading({ session_id: 's', draft: 'slow' }, 999));
    await vi.runAllTimersAsync();
    expect(feed.meter?.total).toBe(5);
    feed.request(null);
    expect(feed.meter).toBeNull();
  });

  it('shows nothing when the backend cannot count', async () => {
    const feed = new MeterFeed(() => Promise.reject(new Error('no provider')), 250);
    feed.request({ session_id: 's', draft: 'x' });
    await vi.runAllTimersAsync();
    expect(feed.meter).toBeNull();
  });
});

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
