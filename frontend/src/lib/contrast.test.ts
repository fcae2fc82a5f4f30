// WCAG AA contrast of the palette in app.css: every pair of colours the UI
// puts text on, in both themes. The palettes are read from the stylesheet
// itself, so a low-contrast colour fails here.
import { describe, expect, it } from 'vitest';
import css from '../app.css?raw';

type Palette = Record<string, string>;

/** The custom properties of the one rule whose selector is exactly `selector`. */
function rule(selector: string): Palette {
  const text = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const bodies = [...text.matchAll(/([^{}]+)\{([^{}]*)\}/g)].filter((m) => m[1]!.trim() === selector).map((m) => m[2]!);
  const out: Palette = {};
  for (const body of bodies) for (const d of body.matchAll(/(--[\w-]+)\s*:\s*([^;]+);/g)) out[d[1]!] = d[2]!.trim();
  return out;
}

const light = rule(':root');
const dark = { ...light, ...rule(":root[data-theme='dark']") };

function luminance(hex: string): number {
  const m = /^#([0-9a-f]{6})$/i.exec(hex);
  if (!m) throw new Error(`${hex} is not a #rrggbb colour`);
  const [r, g, b] = [0, 2, 4].map((i) => {
    const c = parseInt(m[1]!.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

/** The WCAG 2.1 contrast ratio of two colours. */
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

// [text, background] as the UI uses them; all are normal-size text (4.5:1).
const pairs: Array<[string, string]> = [
  ['--text', '--bg'],
  ['--text', '--surface'],
  ['--text', '--sidebar-bg'],
  ['--text', '--hover'],
  ['--text', '--accent-soft'], // the user's bubble
  ['--text', '--mark'], // search highlights
  ['--muted', '--bg'],
  ['--muted', '--surface'],
  ['--muted', '--surface-2'],
  ['--muted', '--sidebar-bg'],
  ['--muted', '--hover'], // plain pills, hovered rows
  ['--muted', '--code-bg'], // code block heads
  ['--accent', '--bg'], // links
  ['--accent', '--accent-soft'], // running pills
  ['--ok', '--ok-bg'], // succeeded pills
  ['--ok', '--surface'],
  ['--warn', '--warn-bg'],
  ['--danger', '--danger-bg'],
  ['--danger', '--surface'],
  ['--danger', '--bg'], // a run diff's regressions count
  ['--ok', '--bg'], // a run diff's fixes count
  ['--text', '--code-bg'], // the Evaluations page's command to run
  ['--accent-text', '--accent'], // primary buttons
  ['--ok-text', '--ok'], // done plan steps
  ['--danger-text', '--danger'], // danger buttons, failed plan steps
  ...['keyword', 'string', 'number', 'comment', 'title', 'attr', 'meta'].map((k): [string, string] => [`--hl-${k}`, '--code-bg']),
];

describe('palette contrast', () => {
  it('reads both palettes from app.css, the dark one written once', () => {
    for (const p of [light, dark]) for (const [fg, bg] of pairs) expect(p[fg] && p[bg], `${fg} / ${bg}`).toBeTruthy();
    expect(rule(":root[data-theme='dark']")['--bg']).toMatch(/^#/);
    expect(light['--bg']).not.toBe(dark['--bg']);
    expect(css.match(/--bg\s*:/g)).toHaveLength(2);
    expect(css).not.toMatch(/prefers-color-scheme/);
  });

  it('computes the WCAG ratio', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrast('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
    expect(contrast('#ffffff', '#ffffff')).toBe(1);
  });

  for (const [name, p] of [
    ['light', light],
    ['dark', dark],
  ] as const) {
    it.each(pairs)(`${name}: %s on %s meets AA (4.5:1)`, (fg, bg) => {
      const r = contrast(p[fg]!, p[bg]!);
      expect(r, `${fg} ${p[fg]} on ${bg} ${p[bg]}: ${r.toFixed(2)}:1`).toBeGreaterThanOrEqual(4.5);
    });
  }
});
