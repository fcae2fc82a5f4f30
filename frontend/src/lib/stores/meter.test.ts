// The context meter is asked a quarter second after the last change to
// the draft, at once when there is nothing shown yet or the conversation
// changed, and an answer that comes back after a newer question is dropped.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Meter, MeterRequest } from '../types';
import { MeterFeed } from './meter.svelte';

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
