// A finished turn opened in the app over the fake backend, for the turn
// components' tests (imported by tests only).
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';

/** Opens the session "Capitals" at its one finished turn. */
export async function openTurn() {
  const b = new FakeBackend({ tick: 5, tokensPerTick: 50 });
  const s = b.addSession('Capitals', new Date(Date.now() - 60_000));
  b.addTurn(s.id, 'Capital of France?');
  render(App, { backend: b });
  const nav = await screen.findByRole('navigation', { name: 'Session list' });
  await fireEvent.click(await within(nav).findByRole('button', { name: 'Capitals' }));
  const turn = await screen.findByRole('article', { name: 'Turn 1' });
  await within(turn).findByRole('button', { name: /Replay/ });
  return { b, turn };
}
