// Mermaid diagrams in answers: a closed ```mermaid block is drawn (the
// source one button away), a source that does not parse says which line,
// mermaid is imported only when the first diagram appears, an unfinished
// block stays source while the answer streams, and what a diagram could
// smuggle in (links, scripts, handlers, fetches) is inert.
//
// jsdom cannot lay out SVG (no getBBox), so mermaid's render is replaced
// here by one that returns the SVG a test gives; its parse is mermaid's
// own, so the errors and their lines are real. The browser test
// (e2e/mermaid.spec.ts) draws real diagrams in Chromium.
import { tick } from 'svelte';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor } from '@testing-library/svelte';

const loaded = vi.hoisted(() => ({ count: 0, svg: '' }));
vi.mock('mermaid', async (importOriginal) => {
  loaded.count++;
  const real = (await importOriginal<typeof import('mermaid')>()).default;
  const render = async (id: string, source: string) => {
    await real.parse(source);
    return {
      svg: loaded.svg || `<svg id="${id}" viewBox="0 0 10 10"><g><text>${source.length}</text></g></svg>`,
      diagramType: 'flowchart',
    };
  };
  return { default: { ...real, initialize: real.initialize, parse: real.parse, mermaidAPI: real.mermaidAPI, render } };
});

import Markdown from './Markdown.svelte';
import { checkSource, sanitizeSvg } from '../../lib/mermaid';
import { fenceClosed } from '../../lib/markdown';

afterEach(() => {
  loaded.svg = '';
});

const flow = 'flowchart TD\n  A[Start] --> B{Ok?}\n  B -->|yes| C[Done]\n';

describe('Mermaid in markdown', () => {
  it('imports mermaid only when the first diagram appears', async () => {
    const { rerender, container } = render(Markdown, { text: 'Plain text\n\n```js\nlet a = 1\n```\n' });
    expect(container.querySelector('.code-block')).not.toBeNull();
    // Nothing to draw: mermaid was never imported.
    await tick(); // the effects of the render have run: none drew or imported anything
    expect(loaded.count).toBe(0);
    await rerender({ text: 'A diagram:\n\n```mermaid\n' + flow + '```\n' });
    await waitFor(() => expect(container.querySelector('.mermaid-view[data-state="drawn"] svg')).not.toBeNull());
    expect(loaded.count).toBe(1);
  });

  it('draws a closed block, and toggles to the source and back with a button', async () => {
    const { container } = render(Markdown, { text: '```mermaid\n' + flow + '```' });
    await waitFor(() => expect(container.querySelector('.mermaid-view[data-state="drawn"]')).not.toBeNull());
    const drawing = container.querySelector<HTMLElement>('.drawing')!;
    expect(drawing.hidden).toBe(false);
    expect(drawing.querySelector('svg')).not.toBeNull();
    expect(container.querySelector('.code-block')).toBeNull();
    const toggle = screen.getByRole('button', { name: 'Source' });
    expect(toggle.getAttribute('aria-pressed')).toBe('false');
    await fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-pressed')).toBe('true');
    expect(container.querySelector('pre.src code')?.textContent).toBe(flow.trimEnd());
    expect(drawing.hidden).toBe(true);
    await fireEvent.click(toggle);
    expect(container.querySelector('pre.src')).toBeNull();
    expect(drawing.hidden).toBe(false);
    expect(screen.getByRole('button', { name: 'Copy SVG' })).toBeTruthy();
  });

  it('names the line a source fails at, with the source below and that line marked', async () => {
    const broken = 'flowchart TD\n  A --> B\n  B --> C\n  C -->> D\n';
    const { container } = render(Markdown, { text: '```mermaid\n' + broken + '```' });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('This diagram could not be drawn.');
    expect(alert.querySelector('.why')?.textContent).toMatch(/^Line 4: /);
    const lines = [...container.querySelectorAll('pre.numbered .ln')].map((l) => l.textContent);
    expect(lines).toHaveLength(4);
    expect(container.querySelector('pre.numbered .bad')?.textContent).toBe('4  C -->> D\n');
    // No drawing, nothing to copy.
    expect(screen.queryByRole('button', { name: 'Copy SVG' })).toBeNull();
  });

  it('says what is wrong with a source that is no diagram at all', async () => {
    render(Markdown, { text: '```mermaid\nhello there\n```' });
    const alert = await screen.findByRole('alert');
    expect(alert.textContent).toContain('not a diagram type mermaid knows');
  });

  it('keeps an unfinished block as source while the answer streams, and draws it when its fence closes', async () => {
    const { container, rerender } = render(Markdown, { text: 'Here:\n\n```mermaid\nflowchart TD\n  A --> ', live: true });
    await tick(); // the effects of the render have run: none drew or imported anything
    expect(container.querySelector('.mermaid-view')).toBeNull();
    expect(container.querySelector('[role="alert"]')).toBeNull();
    expect(container.querySelector('.code-block pre code')?.textContent).toContain('A -->');
    await rerender({ text: 'Here:\n\n```mermaid\n' + flow + '```\n\nDone.', live: true });
    await waitFor(() => expect(container.querySelector('.mermaid-view[data-state="drawn"]')).not.toBeNull());
  });

  it('draws an unclosed block once the answer has stopped streaming', async () => {
    const { container, rerender } = render(Markdown, { text: '```mermaid\n' + flow, live: true });
    await tick(); // the effects of the render have run: none drew or imported anything
    expect(container.querySelector('.mermaid-view')).toBeNull();
    await rerender({ text: '```mermaid\n' + flow, live: false });
    await waitFor(() => expect(container.querySelector('.mermaid-view[data-state="drawn"]')).not.toBeNull());
  });

  it('shows a hostile SVG inert: no script, handler, link, foreign object or fetch', async () => {
    loaded.svg =
      '<svg id="x" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)">' +
      '<style>.a{fill:red}</style><style>.b{background:url(https://evil.example/x)}</style>' +
      '<script>alert(2)</script>' +
      '<a href="javascript:alert(3)"><text>click me</text></a>' +
      '<a xlink:href="https://evil.example"><text>away</text></a>' +
      '<g class="node clickable" onclick="alert(4)" style="fill:url(https://evil.example/y)"><rect fill="url(#grad)"/></g>' +
      '<image href="https://evil.example/i.png"/><use href="https://evil.example/s.svg#a"/>' +
      '<foreignObject><div><img src="https://evil.example/z.png"></div></foreignObject>' +
      '<path marker-end="url(#arrow)"/></svg>';
    const { container } = render(Markdown, { text: '```mermaid\nflowchart TD\n  A --> B\n  click A "javascript:alert(5)"\n```' });
    await waitFor(() => expect(container.querySelector('.mermaid-view[data-state="drawn"]')).not.toBeNull());
    const svg = container.querySelector('.drawing svg')!;
    const html = svg.outerHTML;
    expect(svg.querySelector('script, a, image, use, foreignObject, img')).toBeNull();
    expect(html).not.toMatch(/onload|onclick|javascript:|evil\.example/);
    // What draws the diagram stays: its text, styles and references inside it.
    expect(svg.textContent).toContain('click me');
    expect([...svg.querySelectorAll('style')].map((st) => st.textContent)).toEqual(['.a{fill:red}', '']);
    expect(svg.querySelector('rect')?.getAttribute('fill')).toBe('url(#grad)');
    expect(svg.querySelector('path')?.getAttribute('marker-end')).toBe('url(#arrow)');
  });
});

describe('mermaid sources and SVG', () => {
  it.each([
    ['flowchart TD\n  A --> B\n  style A fill:url(https://evil.example/x)', 3],
    ['flowchart TD\n  classDef c background:u\\72 l(//evil.example)\n  A --> B', 2],
    ['flowchart TD\n  A@{ img: "https://evil.example/a.png" }', 2],
    ['%%{init: {"themeCSS": "@import \'https://evil.example/a.css\'"}}%%\nflowchart TD\n A', 1],
  ])('refuses a source that would load something: %s', (source, line) => {
    const err = checkSource(source);
    expect(err?.line).toBe(line);
    expect(err?.text).toMatch(/^Line \d+: diagrams cannot load URLs or images/);
  });

  it('lets an ordinary diagram through', () => {
    expect(checkSource(flow)).toBeNull();
    expect(checkSource('sequenceDiagram\n  Alice->>Bob: see https://example.com (later)')).toBeNull();
  });

  it('keeps only references inside the diagram', () => {
    const out = sanitizeSvg(
      '<svg><style>#d .node rect{stroke:url(d-gradient);filter:url(#d-shadow)}</style><g style="fill:red"><path marker-end="url(#m)" fill="url(https://e.example/a)"/></g></svg>',
    );
    expect(out).toContain('url(#m)');
    expect(out).toContain('fill:red');
    // mermaid's bare url(id) is made local (it would be a fetch of /d-gradient otherwise).
    expect(out).toContain('stroke:url(#d-gradient);filter:url(#d-shadow)');
    expect(out).not.toContain('e.example');
  });

  it.each([
    ['```mermaid\nflowchart TD\n```', true],
    ['```mermaid\nflowchart TD\n```\n\n', true],
    ['~~~~mermaid\nA\n~~~~~', true],
    ['```mermaid\nflowchart TD\n  A --> B', false],
    ['```mermaid', false],
    ['````mermaid\nA\n```', false],
    ['```mermaid\nA\n~~~', false],
  ])('knows whether a fence is closed: %j', (raw, closed) => {
    expect(fenceClosed(raw)).toBe(closed);
  });
});
