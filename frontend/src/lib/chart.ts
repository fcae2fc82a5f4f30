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
  const type = typeof autosize === 'string' ? autosize : autosize && typeof autosize === 'object' ? (autosize as { type?: unknown }).type : undefined;
  if (type !== undefined && type !== 'fit' && type !== 'fit-x') return spec;
  return { ...spec, width: 'container' };
}

const refuse = (what: string) => () => Promise.reject(new Error(`Charts cannot load ${what}: put the data in the specification.`));

export function embedOptions(expr: EmbedOptions['expr'], dark: boolean): EmbedOptions {
  return {
    ast: true,
    expr,
    loader: { load: refuse('files or URLs'), sanitize: refuse('URLs'), http: refuse('URLs'), file: refuse('files') } as unknown as EmbedOptions['loader'],
    actions: { export: true, source: false, compiled: false, editor: false },
    renderer: 'svg',
    tooltip: true,
    theme: dark ? 'dark' : undefined,
    config: { background: 'transparent' },
    logLevel: 0,
    downloadFileName: 'chart',
  };
}

/** Renders a chart into el; resolves to a function that frees it. */
export async function renderChart(el: HTMLElement, spec: unknown, dark: boolean): Promise<() => void> {
  const clean = fitWidth(cleanSpec(spec));
  const [{ default: embed }, { expressionInterpreter }] = await Promise.all([import('vega-embed'), import('vega-interpreter')]);
  const res: EmbedResult = await embed(el, clean as never, embedOptions(expressionInterpreter, dark));
  return () => res.finalize();
}
