// The fake backend's "Make a suite from these" (app.SuiteFromReviewed):
// the turns a review filter picks become cases of a new suite file, or are
// added to one (a turn the suite has a case of already is skipped), with
// the backend's refusals.
import { BackendError } from './api';
import type { EvalSuiteInfo, ReviewSuiteMade, ReviewSuiteMake, ReviewedTurn } from './types';

export function slugFile(name: string): string {
  const slug = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return `${slug || 'suite'}.yaml`;
}

export class FakeReviewSuites {
  /** Turn ids each suite file has a case of. */
  private turnsOf = new Map<string, Set<string>>();

  constructor(private suites: () => EvalSuiteInfo[]) {}

  make(req: ReviewSuiteMake, picked: ReviewedTurn[]): ReviewSuiteMade {
    const name = (req.name ?? '').trim();
    let file = req.file ?? '';
    let suite: EvalSuiteInfo | undefined;
    if (!file) {
      if (!name) throw new BackendError('invalid', 'Name the new suite, or pick a suite to add the cases to.');
      file = slugFile(name);
      if (this.suites().some((s) => s.file === file))
        throw new BackendError('conflict', `A suite file ${file} already exists: add the cases to it, or give the new suite another name.`);
    } else {
      suite = this.suites().find((s) => s.file === file);
      if (!suite)
        throw new BackendError(
          'not_found',
          `There is no suite file ${file} in the evaluations folder: pick one from the list, or make a new suite.`,
        );
      if (suite.problems?.length)
        throw new BackendError('invalid', `${file} is not a suite that reads: mend it first, or make a new suite.`);
    }
    if (!picked.length)
      throw new BackendError('not_found', 'No turns match the filter: widen it (another rating, label or dates) and try again.');
    const have = this.turnsOf.get(file) ?? new Set<string>();
    const fresh = picked.filter((t) => !have.has(t.turn_id));
    if (!fresh.length)
      throw new BackendError('conflict', `${file} already has a case of every turn picked (${picked.length}): nothing to add.`);
    if (!suite) {
      suite = { file, path: `/tmp/evals/${file}`, name, cases: 0, models: ['local/qwen3'], repeat: 1 };
      this.suites().push(suite);
    }
    for (const t of fresh) have.add(t.turn_id);
    this.turnsOf.set(file, have);
    suite.cases += fresh.length;
    return { suite: structuredClone(suite), added: fresh.length, skipped: picked.length - fresh.length };
  }
}
