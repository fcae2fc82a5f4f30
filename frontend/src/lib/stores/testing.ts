// Helpers for the stores' tests (imported by tests only).
import { vi } from 'vitest';
import type { Backend } from '../api';
import { FakeBackend } from '../fake';
import type { Turn } from '../types';
import { createApp, type App } from './app.svelte';
import { ConversationStore } from './conversation.svelte';
import { SessionsStore } from './sessions.svelte';
import { TurnStore } from './turns.svelte';

/** The open session's turns as stored rows, oldest first. */
export function rowsOf(app: Pick<App, 'conversation' | 'turns'>): Turn[] {
  return app.conversation.ids.map((id) => app.turns.summary(id)!);
}

/** A conversation with its own sessions and turn stores. */
export function conversationOf(b: Backend) {
  const turns = new TurnStore(b);
  const conversation = new ConversationStore(b, new SessionsStore(b), turns);
  return { conversation, turns, rows: () => rowsOf({ conversation, turns }) };
}

/**
 * The head of a PNG of width×height: its signature and IHDR chunk, enough
 * for the fake backend's sniffing and the stub decoder below.
 */
export function pngBytes(width: number, height: number): Uint8Array<ArrayBuffer> {
  const b = new Uint8Array(33);
  b.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const v = new DataView(b.buffer);
  v.setUint32(16, width);
  v.setUint32(20, height);
  b.set([8, 6, 0, 0, 0], 24);
  return b;
}

export function pngFile(name: string, width: number, height: number): File {
  return new File([pngBytes(width, height)], name, { type: 'image/png' });
}

/**
 * jsdom decodes no images: a createImageBitmap that reads a PNG's size
 * from its head (and fails for anything else, as a browser would).
 */
export async function decodePNGHead(blob: Blob): Promise<{ width: number; height: number; close: () => void }> {
  const b = new Uint8Array(await blob.arrayBuffer());
  if (b.length < 24 || b[0] !== 0x89 || b[1] !== 0x50)
    throw new DOMException('The source image could not be decoded.', 'InvalidStateError');
  const v = new DataView(b.buffer, b.byteOffset);
  return { width: v.getUint32(16), height: v.getUint32(20), close: () => {} };
}

/**
 * A fake backend with one local provider (ollama) serving `model`, set as
 * the default provider and model: where most component tests start.
 */
export function localBackend(model = 'm1', opts?: ConstructorParameters<typeof FakeBackend>[0]): FakeBackend {
  const b = new FakeBackend(opts);
  b.providers = [
    {
      name: 'ollama',
      kind: 'ollama',
      base_url: 'http://127.0.0.1:11434/v1',
      local: true,
      needs_key: false,
      models: [model],
      has_key: false,
      masked_key: '',
    },
  ];
  b.settings.default_provider = 'ollama';
  b.settings.default_model = model;
  return b;
}

/**
 * A started app over b whose animation frames the test runs: advance(ms)
 * moves the fake timers (vi.useFakeTimers first) 10 ms at a time and runs
 * the frames asked for meanwhile.
 */
export function steppedApp(b: Backend) {
  let frames: Array<() => void> = [];
  const app = createApp(b, { raf: (cb) => frames.push(cb) });
  app.start();
  const advance = async (ms: number) => {
    for (let t = 0; t < ms; t += 10) {
      await vi.advanceTimersByTimeAsync(10);
      const fs = frames;
      frames = [];
      for (const f of fs) f();
    }
  };
  return { app, advance };
}
