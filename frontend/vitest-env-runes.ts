// A test environment for the stores and their logic: Node's globals, no
// DOM, but modules transformed for the client as the app is, so runes
// ($state, $derived, $effect in .svelte.ts) compile as they ship. The
// built-in node environment transforms for the server, where $effect never
// runs. No jsdom to set up per file: its set-up is most of vitest's time.
import { builtinEnvironments, type Environment } from 'vitest/environments';

export default {
  ...builtinEnvironments.node,
  name: 'runes',
  viteEnvironment: 'client',
} satisfies Environment;
