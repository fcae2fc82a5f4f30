import { afterEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/svelte';

const embed = vi.fn();
vi.mock('vega-embed', () => ({ default: (...args: unknown[]) => embed(...args) }));
vi.mock('vega-interpreter', () => ({ expressionInterpreter: { marker: 'interpreter' } }));

import ChartView from './ChartView.svelte';

const spec = { data: { values: [{ a: 1 }] }, mark: 'bar', encoding: { x: { field: 'a', type: 'quantitative' } } };

afterEach(() => embed.mockReset());

describe('ChartView', () => {
  it.each([
    '<img src=x onerror=alert(1)>',
    '<script>alert(1)</script>',
    '"><svg onload=alert(1)>',
    '<a href="javascript:alert(1)">x</a>',
  ])('renders the title %s as text', async (title) => {
    embed.mockResolvedValue({ finalize: vi.fn() });
    const { container } = render(ChartView, { title, spec });
    const caption = container.querySelector('figcaption')!;
    expect(caption.textContent).toBe(title);
    expect(caption.children).toHaveLength(0);
    expect(container.querySelector('img, script, svg, a')).toBeNull();
    await waitFor(() => expect(embed).toHaveBeenCalled());
  });

  it('embeds with the interpreter, a loader that refuses URLs and export-only actions', async () => {
    embed.mockResolvedValue({ finalize: vi.fn() });
    render(ChartView, { title: 'T', spec: { ...spec, usermeta: { embedOptions: { ast: false, actions: { editor: true } } } } });
    await waitFor(() => expect(embed).toHaveBeenCalled());
    const [, passedSpec, opts] = embed.mock.calls[0]!;
    expect(passedSpec.usermeta).toBeUndefined();
    expect(opts.ast).toBe(true);
    expect(opts.expr).toEqual({ marker: 'interpreter' });
    expect(opts.actions).toEqual({ export: true, source: false, compiled: false, editor: false });
    await expect(opts.loader.load('https://evil.example/data.csv')).rejects.toThrow();
    await expect(opts.loader.sanitize('https://evil.example/', { context: 'href' })).rejects.toThrow();
  });

  it('draws a spec that leaves the width unset as wide as its card', async () => {
    embed.mockResolvedValue({ finalize: vi.fn() });
    render(ChartView, { title: 'T', spec });
    await waitFor(() => expect(embed).toHaveBeenCalled());
    expect(embed.mock.calls[0]![1].width).toBe('container');
  });

  it('keeps the width a spec sets', async () => {
    embed.mockResolvedValue({ finalize: vi.fn() });
    render(ChartView, { title: 'T', spec: { ...spec, width: 320 } });
    await waitFor(() => expect(embed).toHaveBeenCalled());
    expect(embed.mock.calls[0]![1].width).toBe(320);
  });

  it('shows a readable error card when the spec fails', async () => {
    embed.mockRejectedValue(new Error('Invalid specification: unknown mark "bra"'));
    render(ChartView, { title: 'Broken', spec });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('could not be drawn');
    expect(alert.textContent).toContain('unknown mark');
  });

  it('shows an error for a spec that is not an object', async () => {
    render(ChartView, { title: 'Bad', spec: 'not json' });
    expect((await screen.findByRole('alert')).textContent).toContain('not valid JSON');
    expect(embed).not.toHaveBeenCalled();
  });
});
