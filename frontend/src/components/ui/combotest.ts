// Picking a model in a ModelCombobox, for the components' tests (imported
// by tests only): as a person does, typing and clicking a suggestion.
import { fireEvent, waitFor, within } from '@testing-library/svelte';

/** The listbox a combobox controls. */
export function listOf(combo: HTMLElement): HTMLElement {
  return document.getElementById(combo.getAttribute('aria-controls')!)!;
}

/** The suggestions shown, as "provider/model" ("Use …" ones as typed). */
export function optionsOf(combo: HTMLElement): string[] {
  return [...listOf(combo).querySelectorAll<HTMLElement>('[role="option"]')].map((o) => {
    const group = o.closest('[role="group"]')?.getAttribute('aria-label');
    const name = o.querySelector('.name')!.textContent!;
    return group ? `${group}/${name}` : `use:${name}`;
  });
}

/** Types model and clicks its suggestion on provider. */
export async function pickModel(combo: HTMLElement, provider: string, model: string) {
  combo.focus();
  await fireEvent.input(combo, { target: { value: model } });
  const group = await waitFor(() => within(listOf(combo)).getByRole('group', { name: provider }));
  const option = within(group)
    .getAllByRole('option')
    .find((o) => o.querySelector('.name')!.textContent === model);
  if (!option) throw new Error(`no suggestion ${provider}/${model}`);
  await fireEvent.click(option);
}

/** Types a name and presses Enter: the name as typed. */
export async function typeModel(combo: HTMLElement, name: string) {
  combo.focus();
  await fireEvent.input(combo, { target: { value: name } });
  await fireEvent.keyDown(combo, { key: 'Enter' });
}
