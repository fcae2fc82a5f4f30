// The axe-core audit every spec runs over a state of the app: WCAG 2.1 AA
// rules, each audit's counts by impact written to
// build/e2e/a11y/<state>-<scheme>.json, and no serious or critical
// violation allowed.
import AxeBuilder from '@axe-core/playwright';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { expect, OUT } from './fixtures';

const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const IMPACTS = ['critical', 'serious', 'moderate', 'minor'] as const;

export type Scheme = 'light' | 'dark';

/** Runs axe over the page, records the counts, and asserts (softly, so
 * the later states of a test are still audited) that nothing serious or
 * critical was found. */
export async function audit(page: Page, state: string, scheme: Scheme): Promise<void> {
  const { violations } = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  const counts = Object.fromEntries(IMPACTS.map((i) => [i, violations.filter((v) => v.impact === i).length]));
  const nodes = Object.fromEntries(
    IMPACTS.map((i) => [i, violations.filter((v) => v.impact === i).reduce((n, v) => n + v.nodes.length, 0)]),
  );
  const dir = join(OUT, 'a11y');
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, `${state}-${scheme}.json`),
    JSON.stringify(
      {
        state,
        scheme,
        rules: counts,
        nodes,
        violations: violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map(where) })),
      },
      null,
      2,
    ),
  );
  const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect
    .soft(
      bad.map((v) => `${v.id} (${v.impact}): ${v.help}\n${v.nodes.map((n) => `    ${where(n)}`).join('\n')}`),
      `serious and critical axe violations: ${state}, ${scheme}`,
    )
    .toEqual([]);
}

/** A node's selector, and for a contrast failure its colours and ratio. */
function where(n: { target: unknown[]; any: Array<{ id: string; data: unknown }> }): string {
  const target = n.target.map(String).join(' ');
  const contrast = n.any.find((c) => c.id === 'color-contrast')?.data as
    { fgColor?: string; bgColor?: string; contrastRatio?: number; expectedContrastRatio?: string } | undefined;
  return contrast?.contrastRatio
    ? `${target} — ${contrast.fgColor} on ${contrast.bgColor}: ${contrast.contrastRatio}:1 (needs ${contrast.expectedContrastRatio})`
    : target;
}
