// What a turn shown in a side-by-side column knows of its column, through
// the Svelte context: its letter, and whether the names are hidden. A
// turn in a blind column shows no model, workflow or diagnostics (which
// name the model) until the vote, and offers no action that would (a
// re-run picks a model); its approvals say which column asks.
import { getContext, setContext } from 'svelte';

export interface ColumnContext {
  /** "A", "B", … */
  readonly letter: string;
  /** The names are hidden (a blind group with no vote yet). */
  readonly blind: boolean;
}

const key = Symbol('side-by-side column');

export function setColumn(c: ColumnContext) {
  setContext(key, c);
}

/** The column the turn is shown in, or undefined outside side by side. */
export function useColumn(): ColumnContext | undefined {
  return getContext<ColumnContext | undefined>(key);
}
