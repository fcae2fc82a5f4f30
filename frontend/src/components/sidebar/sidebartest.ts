// The fake backend the sidebar's shell tests start from: one local
// provider with one model, the default, and the window's ready call.
import { vi } from 'vitest';
import { FakeBackend } from '../../lib/fake';

export function shellBackend(): FakeBackend {
  const b = new FakeBackend();
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
  b.settings.default_provider = 'ollama';
  b.settings.default_model = 'm1';
  Object.assign(b, { uiReady: vi.fn().mockResolvedValue(undefined) });
  return b;
}
