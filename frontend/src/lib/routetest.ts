// A window with a history of entries, as the browser keeps them, for
// tests of what the location hash does (route.ts, stores/navigation.ts).
import type { RouterWindow } from './route';

export class FakeWindow implements RouterWindow {
  entries: Array<{ url: string; state: unknown }>;
  index = 0;
  private listeners = new Map<string, Set<() => void>>();
  readonly history: RouterWindow['history'];

  constructor(url = '/') {
    this.entries = [{ url, state: null }];
    // Arrows: the history's methods act on this window.
    const entries = () => this.entries;
    this.history = {
      pushState: (state: unknown, _t: string, url?: string | URL | null) => {
        this.entries = [...this.entries.slice(0, this.index + 1), { url: String(url), state }];
        this.index++;
      },
      replaceState: (state: unknown, _t: string, url?: string | URL | null) => {
        this.entries[this.index] = { url: String(url), state };
      },
      get state() {
        return entries()[index()]!.state;
      },
    };
    const index = () => this.index;
  }

  get location() {
    const u = new URL(this.entries[this.index]!.url, 'http://app.test');
    return { hash: u.hash, pathname: u.pathname, search: u.search };
  }

  addEventListener(type: string, fn: () => void) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type)!.add(fn);
  }

  removeEventListener(type: string, fn: () => void) {
    this.listeners.get(type)?.delete(fn);
  }

  /** Back (-1) or Forward (1): popstate, then hashchange if the hash changed. */
  go(delta: number) {
    const before = this.location.hash;
    this.index = Math.max(0, Math.min(this.entries.length - 1, this.index + delta));
    this.fire('popstate');
    if (this.location.hash !== before) this.fire('hashchange');
  }

  /** The person edits the address: a new entry, and both events. */
  type(url: string) {
    this.entries = [...this.entries.slice(0, this.index + 1), { url, state: null }];
    this.index++;
    this.fire('popstate');
    this.fire('hashchange');
  }

  /** The URLs of the entries, oldest first. */
  urls(): string[] {
    return this.entries.map((e) => e.url);
  }

  private fire(type: string) {
    for (const fn of this.listeners.get(type) ?? []) fn();
  }
}
