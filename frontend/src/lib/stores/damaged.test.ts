// A message into a damaged database: the backend refuses with the
// Damaged code, the person is asked, and only a confirmation sends it
// again with force.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BackendError, DAMAGED, isDamaged } from '../api';
import { FakeBackend } from '../fake';
import type { SendRequest } from '../types';
import { createApp } from './app.svelte';
import { rowsOf } from './testing';

const refusal = 'Agentdeck did not start the turn: the database /x/agentdeck.db is damaged (the events table has a damaged page).';

function setup() {
  const b = new FakeBackend({ tick: 10, tokensPerTick: 8 });
  b.providers = [
    {
      name: 'ollama',
      kind: 'ollama',
      base_url: 'http://127.0.0.1:11434/v1',
      local: true,
      needs_key: false,
      models: ['m1'],
      has_key: false,
      masked_key: '',
    },
  ];
  const sent: SendRequest[] = [];
  const send = b.sendMessage.bind(b);
  b.sendMessage = async (req: SendRequest) => {
    sent.push(req);
    if (!req.force) throw new BackendError(DAMAGED, refusal);
    return send(req);
  };
  let statusCalls = 0;
  const status = b.status.bind(b);
  b.status = async () => {
    statusCalls++;
    return { ...(await status()), damaged: 'The database /x/agentdeck.db is damaged.' };
  };
  const app = createApp(b, { raf: (cb) => cb() });
  app.start();
  return { app, sent, statusCalls: () => statusCalls };
}

describe('send into a damaged database', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('asks, and sends again with force when the person confirms', async () => {
    const { app, sent, statusCalls } = setup();
    const pending = app.send('Keep going');
    await vi.advanceTimersByTimeAsync(0);
    expect(app.ui.damagedSend).toBe(refusal);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.force).toBeUndefined();
    expect(statusCalls()).toBeGreaterThan(0);
    expect(app.status?.damaged).toContain('damaged');

    app.answerDamaged(true);
    const id = await pending;
    expect(id).toBeTruthy();
    expect(sent).toHaveLength(2);
    expect(sent[1]).toMatchObject({ message: 'Keep going', force: true });
    expect(app.ui.damagedSend).toBe('');
    expect(rowsOf(app)).toHaveLength(1);
  });

  it('sends nothing more when the person cancels', async () => {
    const { app, sent } = setup();
    const pending = app.send('Keep going');
    await vi.advanceTimersByTimeAsync(0);
    app.answerDamaged(false);
    expect(await pending).toBeNull();
    expect(sent).toHaveLength(1);
    expect(app.ui.damagedSend).toBe('');
    expect(app.ui.toast).toBe('');
  });

  it('tells the damaged code from others', () => {
    expect(isDamaged(new BackendError('damaged', 'x'))).toBe(true);
    expect(isDamaged({ code: 'damaged', message: 'x' })).toBe(true);
    expect(isDamaged(new BackendError('unavailable', 'x'))).toBe(false);
    expect(isDamaged(new Error('boom'))).toBe(false);
  });
});
