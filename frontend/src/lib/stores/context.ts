// The app's stores reach components through the Svelte context.
import { getContext, setContext } from 'svelte';
import type { App } from './app.svelte';

const key = Symbol('agentdeck');

export function provideApp(app: App) {
  setContext(key, app);
}

export function useApp(): App {
  const app = getContext<App | undefined>(key);
  if (!app) throw new Error('useApp called outside the app');
  return app;
}

/** The app when inside it; undefined in isolated component tests. */
export function tryUseApp(): App | undefined {
  return getContext<App | undefined>(key);
}
