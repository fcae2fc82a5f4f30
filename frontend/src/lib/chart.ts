// Rendering a model-made chart safely. The spec is untrusted: vega runs
// with the AST interpreter (no eval: the CSP forbids it anyway), a loader
// that refuses every URL (no data, image or link leaves the app), no
// editor or source actions, and without the spec's usermeta (which could
// override these options).
import type { EmbedOptions, Result as EmbedResult } from 'vega-embed';

export class ChartSpecError extends Error {}

/** Parses and cleans a spec; throws ChartSpecError for one that is not an object. */
export function cleanSpec(spec: unknown): Record<string, unknown> {
  let v = spec;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v);
    } catch {
      throw new ChartSpecError('The chart specification is not valid JSON.');
    }
  }
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new ChartSpecError('The chart specification is not a JSON object.');
  const { usermeta: _drop, ...rest } = v as Record<string, unknown>;
  return rest;
}

/**
 * A Vega-Lite view whose spec leaves the width unset is as wide as its
 * card, not Vega-Lite's default (20 px a band: a three-bar chart is 80 px
 * wide). Only single and layered views can fill their container; a facet,
 * repeat or concat, a raw Vega spec, an explicit width, or an autosize
 * that cannot fit the width keeps the spec's own sizing.
 */
export function fitWidth(spec: Record<string, unknown>): Record<string, unknown> {
  if (spec.width !== undefined || !('mark' in spec || 'layer' in spec)) return spec;
  if (['facet', 'repeat', 'concat', 'hconcat', 'vconcat'].some((k) => k in spec)) return spec;
  const enc = spec.encoding;
  if (enc && typeof enc === 'object' && ['row', 'column', 'facet'].some((k) => k in enc)) return spec;
  const autosize = spec.autosize;
  const type =
    typeof autosize === 'string' ? autosize : autosize && typeof autosize === 'object' ? (autosize as { type?: unknown }).type : undefined;
  if (type !== undefined && type !== 'fit' && type !== 'fit-x') return spec;
  return { ...spec, width: 'container' };
}

const refuse = (what: string) => () => Promise.reject(new Error(`Charts cannot load ${what}: put the data in the specification.`));

/** The theme a chart is drawn in: light or dark, and app.css's colours. */
export interface ChartTheme {
  dark: boolean;
  text: string;
  muted: string;
  border: string;
  surface: string;
}

/** The theme an element shows now, read from its custom properties. */
export function themeOf(el: Element, dark: boolean): ChartTheme {
  const css = getComputedStyle(el);
  const v = (name: string) => css.getPropertyValue(name).trim();
  return { dark, text: v('--text'), muted: v('--muted'), border: v('--border'), surface: v('--surface') };
}

/** An object without its empty values. */
const some = <T extends Record<string, string>>(o: T): Partial<T> =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v)) as Partial<T>;

/**
 * Vega-Lite config in the theme's colours: the card's background (so an
 * exported image reads in either theme), text and muted guides, border
 * grid lines. A colour the page does not define is left to vega's own
 * light or dark theme.
 */
export function chartConfig(t: ChartTheme): NonNullable<EmbedOptions['config']> {
  return {
    background: t.surface || 'transparent',
    view: some({ stroke: t.border }),
    axis: some({ domainColor: t.muted, tickColor: t.muted, gridColor: t.border, labelColor: t.muted, titleColor: t.text }),
    legend: some({ labelColor: t.muted, titleColor: t.text }),
    header: some({ labelColor: t.muted, titleColor: t.text }),
    title: some({ color: t.text, subtitleColor: t.muted }),
    text: some({ color: t.text }),
    style: { 'guide-label': some({ fill: t.muted }), 'guide-title': some({ fill: t.text }) },
  } as NonNullable<EmbedOptions['config']>;
}

export function embedOptions(expr: EmbedOptions['expr'], theme: ChartTheme): EmbedOptions {
  return {
    ast: true,
    expr,
    loader: {
      load: refuse('files or URLs'),
      sanitize: refuse('URLs'),
      http: refuse('URLs'),
      file: refuse('files'),
    } as unknown as EmbedOptions['loader'],
    actions: { export: true, source: false, compiled: false, editor: false },
    renderer: 'svg',
    tooltip: true,
    theme: theme.dark ? 'dark' : undefined,
    config: chartConfig(theme),
    logLevel: 0,
    downloadFileName: 'chart',
  };
}

/**
 * Renders a chart into el in the theme it shows now; resolves to a
 * function that frees it. A theme switch needs a new render.
 */
export async function renderChart(el: HTMLElement, spec: unknown, dark: boolean): Promise<() => void> {
  const clean = fitWidth(cleanSpec(spec));
  const [{ default: embed }, { expressionInterpreter }] = await Promise.all([import('vega-embed'), import('vega-interpreter')]);
  const res: EmbedResult = await embed(el, clean as never, embedOptions(expressionInterpreter, themeOf(el, dark)));
  // vega-embed's actions menu is a <summary> holding only an icon: name it.
  el.querySelector('details > summary')?.setAttribute('aria-label', 'Chart actions');
  return () => res.finalize();
}
