// A turn imported from another app's history has no recorded model calls:
// its Replay is offered disabled, saying why, while a turn that ran here
// replays.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';

async function open(importedFrom: string) {
  const b = new FakeBackend({ tick: 5, tokensPerTick: 50 });
  const s = b.addSession('Capitals', new Date(Date.now() - 60_000));
  const t = b.addTurn(s.id, 'Capital of France?');
  if (importedFrom) Object.assign(t, { copied: 'import', imported_from: importedFrom });
  render(App, { backend: b });
  const nav = await screen.findByRole('navigation', { name: 'Session list' });
  await fireEvent.click(await within(nav).findByRole('button', { name: 'Capitals' }));
  const turn = await screen.findByRole('article', { name: 'Turn 1' });
  return within(turn).findByRole('button', { name: /Replay/ });
}

describe('Replay', () => {
  it('is disabled for a turn imported from another app, saying why', async () => {
    const replay = await open('ChatGPT');
    await waitFor(() => expect((replay as HTMLButtonElement).disabled).toBe(true));
    expect(replay.title).toBe('Imported from ChatGPT: there are no recorded model calls to replay. Re-run it instead.');
  });

  it('is offered for a turn that ran here', async () => {
    const replay = await open('');
    expect((replay as HTMLButtonElement).disabled).toBe(false);
    expect(replay.title).toBe('Run again offline from the recorded model calls');
  });
});

describe('an imported turn', () => {
  it('says where it came from instead of figures no call made', async () => {
    await open('ChatGPT');
    const turn = screen.getByRole('article', { name: 'Turn 1' });
    await waitFor(() => expect(within(turn).getByTestId('turn-imported').textContent?.trim()).toBe('imported from ChatGPT'));
    expect(within(turn).queryByTestId('turn-cost')).toBeNull();
  });
});
