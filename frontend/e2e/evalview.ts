// A run to read in the evaluation viewer (evalview.spec.ts, the axe
// suite): four cases on the two scripted providers, made with
// `agentdeck eval`. Its answers: whoami names who answered (passes on
// fake, fails on second), think says 42 (passes, and so says its judge:
// fakellm's judge passes a rubric saying "judge passes"), "tall answer 47" is
// about 3,000 characters (more than the report's 2,000, so Show more reads
// the rest; its max_tokens fails), xss is markup that must stay text (its
// not_contains fails).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { expect } from './fixtures';

export function viewSuite(name: string): string {
  return `name: ${name}
models: [fake/smoke-model, second/second-model]
cases:
  - id: whoami
    prompt: whoami
    assert:
      - contains: fakellm
  - id: think
    prompt: Please think about what six times seven is.
    assert:
      - contains: "42"
      - judge:
          rubric: "judge passes: the answer says 42"
          model: fake/smoke-model
  - id: tall
    prompt: Give me tall answer 47
    assert:
      - contains: Tall answer 47 ends.
      - max_tokens: 100
  - id: xss
    prompt: Show me the xss answer
    assert:
      - not_contains: <script>
`;
}

/** Runs a suite with agentdeck eval; it exits 1 when a case did not pass. */
export function runEval(yaml: string): void {
  const dir = mkdtempSync(join(tmpdir(), 'agentdeck-eval-'));
  const file = join(dir, 'suite.yaml');
  writeFileSync(file, yaml);
  try {
    execFileSync(process.env.E2E_BIN!, ['eval', file, '--db', process.env.E2E_DB!, '--concurrency', '4'], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 120_000,
    });
  } catch (err) {
    if ((err as { status?: number }).status !== 1) throw err;
  }
}

/** Opens the Evaluations page at the newest run of suite name; returns its matrix. */
export async function openRun(page: Page, name: string): Promise<Locator> {
  await page.getByRole('button', { name: 'Evaluations' }).click();
  await expect(page).toHaveURL(/#\/evals/);
  const mine = page.getByRole('navigation', { name: 'Runs' }).getByRole('link').filter({ hasText: name }).first();
  await mine.click();
  await expect(mine).toHaveAttribute('aria-current', 'page');
  return page.getByTestId('eval-matrix');
}
