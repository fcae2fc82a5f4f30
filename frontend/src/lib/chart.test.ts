import { describe, expect, it } from 'vitest';
import { fitWidth } from './chart';

const bars = {
  data: { values: [{ a: 'x', b: 1 }] },
  mark: 'bar',
  encoding: { x: { field: 'a', type: 'nominal' }, y: { field: 'b', type: 'quantitative' } },
};

describe('fitWidth', () => {
  it.each([
    ['a single view', bars, 'container'],
    ['a layered view', { layer: [bars, { ...bars, mark: 'text' }] }, 'container'],
    ['a view that fits its width already', { ...bars, autosize: { type: 'fit-x' } }, 'container'],
    ['a view that fits both ways', { ...bars, autosize: 'fit' }, 'container'],
    ['a view with its own width', { ...bars, width: 240 }, 240],
    ['a view with a step width', { ...bars, width: { step: 40 } }, { step: 40 }],
    ['a view padded, not fitted', { ...bars, autosize: 'pad' }, undefined],
    ['a horizontal concat', { hconcat: [bars, bars] }, undefined],
    ['a facet by column', { ...bars, encoding: { ...bars.encoding, column: { field: 'a' } } }, undefined],
    ['a repeat', { repeat: ['b'], spec: bars }, undefined],
    ['a raw Vega spec', { $schema: 'https://vega.github.io/schema/vega/v5.json', marks: [] }, undefined],
  ])('%s', (_name, spec, want) => {
    expect(fitWidth(spec as Record<string, unknown>).width).toEqual(want);
  });

  it('leaves the spec it was given alone', () => {
    const spec = { ...bars };
    fitWidth(spec);
    expect(spec).not.toHaveProperty('width');
  });
});
