// The theme the window shows. The preference (Settings → Appearance) is
// light, dark or system; the document always carries the resolved one as
// data-theme on <html>, so app.css holds the dark palette once, under
// :root[data-theme='dark']. The system's preference and the document's
// attribute are read through subscribers, so what reads them in a
// reactive context (App's effect, a chart) updates when they change.
import { createSubscriber } from 'svelte/reactivity';
import type { Theme } from './types';

export type Shown = 'light' | 'dark';

/** The theme shown for a preference: light or dark as asked, else the system's. */
export function effectiveTheme(pref: Theme | '' | undefined, prefersDark: boolean): Shown {
  if (pref === 'light' || pref === 'dark') return pref;
  return prefersDark ? 'dark' : 'light';
}

/** Shows a theme on the document. */
export function applyTheme(root: HTMLElement, shown: Shown) {
  root.dataset.theme = shown;
}

/** Whether the system prefers dark; false where the window cannot tell. */
export function systemDark(win: Window & typeof globalThis = window): { readonly current: boolean } {
  const mq = typeof win.matchMedia === 'function' ? win.matchMedia('(prefers-color-scheme: dark)') : null;
  const subscribe = createSubscriber((update) => {
    mq?.addEventListener('change', update);
    return () => mq?.removeEventListener('change', update);
  });
  return {
    get current() {
      subscribe();
      return mq?.matches ?? false;
    },
  };
}

/** The theme a document shows (its data-theme), updated when it changes. */
export function shownTheme(root: HTMLElement): { readonly current: Shown } {
  const subscribe = createSubscriber((update) => {
    const observer = new MutationObserver(update);
    observer.observe(root, { attributes: true, attributeFilter: ['data-theme'] });
    return () => observer.disconnect();
  });
  return {
    get current() {
      subscribe();
      return root.dataset.theme === 'dark' ? 'dark' : 'light';
    },
  };
}
