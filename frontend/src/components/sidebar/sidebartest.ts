// The fake backend the sidebar's shell tests start from: one local
// provider with one model, the default, and the window's ready call.
import { vi } from 'vitest';
import { FakeBackend } from '../../lib/fake';
import { localBackend } from '../../lib/stores/testing';

export function shellBackend(): FakeBackend {
  const b = localBackend('m1');
  Object.assign(b, { uiReady: vi.fn().mockResolvedValue(undefined) });
  return b;
}
