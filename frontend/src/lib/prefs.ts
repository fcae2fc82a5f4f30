// The window's own small preferences (what the sidebar lists, not the Go
// side's Settings): kept in the web view's localStorage, so they outlast a
// reload and a restart on this machine. A storage that is missing or
// throws (a private window, a full disk, a test) keeps the default.

/** A flag kept under a name. */
export interface Prefs {
  flag(name: string, fallback: boolean): boolean;
  setFlag(name: string, on: boolean): void;
}

export function storagePrefs(storage: Pick<Storage, 'getItem' | 'setItem'> | null = defaultStorage()): Prefs {
  const key = (name: string) => `agentdeck.${name}`;
  return {
    flag(name, fallback) {
      try {
        const v = storage?.getItem(key(name));
        return v === '1' ? true : v === '0' ? false : fallback;
      } catch {
        return fallback;
      }
    },
    setFlag(name, on) {
      try {
        storage?.setItem(key(name), on ? '1' : '0');
      } catch {
        // Kept for this page's life only.
      }
    },
  };
}

function defaultStorage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}
