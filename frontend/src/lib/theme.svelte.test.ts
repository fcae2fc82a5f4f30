// A .svelte.test.ts file: the subscribers are read inside $effect.root.
import { describe, expect, it } from 'vitest';
import { flushSync } from 'svelte';
import { applyTheme, effectiveTheme, shownTheme, systemDark } from './theme';

/** A window whose prefers-color-scheme the test sets. */
function fakeWindow(dark: boolean) {
  const listeners = new Set<() => void>();
  const mq = {
    matches: dark,
    addEventListener: (_: string, f: () => void) => listeners.add(f),
    removeEventListener: (_: string, f: () => void) => listeners.delete(f),
  };
  const win = { matchMedia: () => mq } as unknown as Window & typeof globalThis;
  return {
    win,
    listeners,
    set(d: boolean) {
      mq.matches = d;
      for (const f of listeners) f();
    },
  };
}

/** Records what `read` returns each time an effect runs it. */
function watch<T>(read: () => T): { seen: T[]; stop: () => void } {
  const seen: T[] = [];
  const stop = $effect.root(() => {
    $effect(() => {
      seen.push(read());
    });
  });
  flushSync();
  return { seen, stop };
}

describe('theme', () => {
  it('resolves a preference: light and dark as asked, system as the system prefers', () => {
    expect(effectiveTheme('light', true)).toBe('light');
    expect(effectiveTheme('dark', false)).toBe('dark');
    expect(effectiveTheme('system', true)).toBe('dark');
    expect(effectiveTheme('system', false)).toBe('light');
    expect(effectiveTheme('', true)).toBe('dark');
    expect(effectiveTheme(undefined, false)).toBe('light');
  });

  it('always writes the shown theme on the document', () => {
    const root = document.createElement('html');
    applyTheme(root, 'dark');
    expect(root.dataset.theme).toBe('dark');
    applyTheme(root, 'light');
    expect(root.dataset.theme).toBe('light');
  });

  it('follows the system preference while something reads it, and stops listening after', async () => {
    const w = fakeWindow(false);
    const sys = systemDark(w.win);
    const { seen, stop } = watch(() => sys.current);
    expect(seen).toEqual([false]);
    expect(w.listeners.size).toBe(1);
    w.set(true);
    flushSync();
    expect(seen).toEqual([false, true]);
    stop();
    // The subscriber lets go in a microtask.
    await Promise.resolve();
    expect(w.listeners.size).toBe(0);
  });

  it('is light where the window cannot tell', () => {
    expect(systemDark({} as Window & typeof globalThis).current).toBe(false);
  });

  it('reports the theme the document shows when its data-theme changes', async () => {
    const root = document.createElement('html');
    applyTheme(root, 'light');
    const shown = shownTheme(root);
    const { seen, stop } = watch(() => shown.current);
    expect(seen).toEqual(['light']);
    applyTheme(root, 'dark');
    // A MutationObserver reports in a microtask.
    await Promise.resolve();
    flushSync();
    expect(seen).toEqual(['light', 'dark']);
    root.dataset.other = 'x';
    await Promise.resolve();
    flushSync();
    expect(seen).toEqual(['light', 'dark']);
    stop();
  });
});
