// The turn's ⋯ menu is a WAI-ARIA menu button (issue 40): it opens with
// its first item focused (the last from Up), arrows move round the items,
// Home and End reach the ends, Escape closes it and gives focus back to
// the button, and Tab closes it.
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, screen, waitFor, within } from '@testing-library/svelte';
import { openTurn } from './turntest';

afterEach(() => localStorage.clear());

async function openMenuButton() {
  const { turn } = await openTurn();
  return { turn, button: within(turn).getByRole('button', { name: 'More actions' }) };
}

const focusedName = () => document.activeElement?.textContent?.trim();
const key = (el: Element, k: string) => fireEvent.keyDown(el, { key: k });

describe('the turn menu', () => {
  it('opens from the keyboard and moves with arrows, Home and End', async () => {
    const { turn, button } = await openMenuButton();
    button.focus();
    await key(button, 'ArrowDown');
    const menu = await within(turn).findByRole('menu', { name: 'More actions' });
    expect(button.getAttribute('aria-expanded')).toBe('true');
    expect(button.getAttribute('aria-controls')).toBe(menu.id);
    const items = within(menu).getAllByRole('menuitem');
    expect(items.map((i) => i.textContent!.trim())).toEqual(['Regenerate with…', 'Fork from here', 'Add to evaluation…', 'Delete…']);
    await waitFor(() => expect(document.activeElement).toBe(items[0]));
    expect(items.every((i) => i.tabIndex === -1)).toBe(true);

    const walk: Array<[string, string]> = [
      ['ArrowDown', 'Fork from here'],
      ['ArrowDown', 'Add to evaluation…'],
      ['ArrowDown', 'Delete…'],
      ['ArrowDown', 'Regenerate with…'],
      ['ArrowUp', 'Delete…'],
      ['Home', 'Regenerate with…'],
      ['End', 'Delete…'],
    ];
    for (const [k, want] of walk) {
      await key(document.activeElement!, k);
      expect(focusedName(), k).toBe(want);
    }
  });

  it('opens at the last item with Up, and Escape closes it and focuses the button', async () => {
    const { turn, button } = await openMenuButton();
    button.focus();
    await key(button, 'ArrowUp');
    await waitFor(() => expect(focusedName()).toBe('Delete…'));
    await key(document.activeElement!, 'Escape');
    await waitFor(() => expect(within(turn).queryByRole('menu')).toBeNull());
    expect(document.activeElement).toBe(button);
    expect(button.getAttribute('aria-expanded')).toBe('false');
  });

  it('opens with a click at the first item; an item gives focus back to the button before it acts', async () => {
    const { turn, button } = await openMenuButton();
    await fireEvent.click(button);
    await waitFor(() => expect(focusedName()).toBe('Regenerate with…'));
    await key(document.activeElement!, 'Tab');
    await waitFor(() => expect(within(turn).queryByRole('menu')).toBeNull());

    await fireEvent.click(button);
    await waitFor(() => expect(focusedName()).toBe('Regenerate with…'));
    await fireEvent.click(document.activeElement!);
    const dialog = await screen.findByRole('dialog', { name: 'Regenerate with…' });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(document.activeElement).toBe(button));
  });
});
