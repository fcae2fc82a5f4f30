// What applies now to a saved provider's default model (its window and
// price, and where they come from) and where its monthly budget stands:
// read as the provider's form opens and again as its default model is
// changed. Answers to an older read are dropped.
import type { Backend } from '../api';
import type { BudgetState, Facts } from '../types';

export class ProviderFacts {
  #backend: Pick<Backend, 'modelFacts' | 'budgetState'>;
  #asked = 0;
  facts = $state.raw<Facts | null>(null);
  budget = $state.raw<BudgetState | null>(null);

  constructor(backend: Pick<Backend, 'modelFacts' | 'budgetState'>) {
    this.#backend = backend;
  }

  /** Reads the facts of a provider's model ('' keeps the last ones) and its budget. */
  read(provider: string, model: string) {
    if (!provider) return;
    const ask = ++this.#asked;
    if (model) {
      this.#backend.modelFacts(provider, model).then(
        (f) => ask === this.#asked && (this.facts = f),
        () => ask === this.#asked && (this.facts = null),
      );
    }
    this.#backend.budgetState(provider).then(
      (b) => ask === this.#asked && (this.budget = b),
      () => ask === this.#asked && (this.budget = null),
    );
  }
}
