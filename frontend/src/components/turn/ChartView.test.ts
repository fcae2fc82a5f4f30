import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { render, screen, waitFor } from '@testing-library/svelte';
import appCss from '../../app.css?raw';

const embed = vi.fn();
vi.mock('vega-embed', () => ({ default: (...args: unknown[]) => embed(...args) }));
vi.mock('vega-interpreter', () => ({ expressionInterpreter: { marker: 'interpreter' } }));
// Counts the renders ChartView starts (synchronously, in its effect).
const renders = vi.hoisted(() => ({ count: 0 }));
vi.mock('../../lib/chart', async (importOriginal) => {
  const m = await importOriginal<typeof import('../../lib/chart')>();
  return {
    ...m,
    renderChart: (...a: Parameters<typeof m.renderChart>) => {
      renders.count++;
      return m.renderChart(...a);
    },
  };
});

import ChartView from './ChartView.svelte';

const spec = { data: { values: [{ a: 1 }] }, mark: 'bar', encoding: { x: { field: 'a', type: 'quantitative' } } };

afterEach(() => embed.mockReset());

describe('ChartView', () => {
  it.each(['<img src=x onerror=alert(1)>', '<script>alert(1)</script>', '"><svg onload=alert(1)>', '<a href="javascript:alert(1)">x</a>'])(
    'renders the title %s as text',
    async (title) => {
      embed.mockResolvedValue({ finalize: vi.fn() });
      const { container } = render(ChartView, { title, spec });
      const caption = container.querySelector('figcaption')!;
      expect(caption.textContent).toBe(title);
      expect(caption.children).toHaveLength(0);
      expect(container.querySelector('img, script, svg, a')).toBeNull();
      await waitFor(() => expect(embed).toHaveBeenCalled());
    },
  );

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

describe('ChartView in a theme', () => {
  const root = document.documentElement;
  const cssVar = (name: string) => getComputedStyle(root).getPropertyValue(name).trim();
  let style: HTMLStyleElement;

  // The real palette: app.css on a document that shows the light theme.
  beforeEach(() => {
    style = document.createElement('style');
    style.textContent = appCss;
    document.head.append(style);
    root.dataset.theme = 'light';
    renders.count = 0;
  });
  afterEach(() => {
    style.remove();
    delete root.dataset.theme;
  });

  it("draws in the shown theme's colours, again when the theme switches, and not on other updates", async () => {
    const firstView = { finalize: vi.fn() };
    embed.mockResolvedValue(firstView);
    const { rerender } = render(ChartView, { title: 'T', spec });
    await waitFor(() => expect(embed).toHaveBeenCalledTimes(1));
    const light = embed.mock.calls[0]![2];
    expect(light.theme).toBeUndefined();
    expect(light.config.background).toBe(cssVar('--surface'));
    expect(light.config.axis).toMatchObject({ labelColor: cssVar('--muted'), titleColor: cssVar('--text'), gridColor: cssVar('--border') });

    root.dataset.theme = 'dark';
    await waitFor(() => expect(embed).toHaveBeenCalledTimes(2));
    expect(firstView.finalize).toHaveBeenCalled();
    const dark = embed.mock.calls[1]![2];
    expect(dark.theme).toBe('dark');
    expect(dark.config.background).toBe(cssVar('--surface'));
    expect(dark.config.background).not.toBe(light.config.background);
    expect(dark.config.axis.labelColor).toBe(cssVar('--muted'));
    expect(dark.config.axis.labelColor).not.toBe(light.config.axis.labelColor);
    expect(renders.count).toBe(2);

    // A new title, or an attribute other than data-theme, draws nothing new;
    // a new spec does (so the count would see a redraw).
    await rerender({ title: 'Renamed', spec });
    root.dataset.other = 'x';
    await Promise.resolve();
    await rerender({ title: 'Renamed again', spec });
    expect(renders.count).toBe(2);
    await rerender({ title: 'Renamed again', spec: { ...spec, mark: 'line' } });
    expect(renders.count).toBe(3);
    delete root.dataset.other;
  });
});
