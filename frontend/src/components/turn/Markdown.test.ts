// The Markdown component: a streaming answer is markdown from its first
// characters, held back (and then caught up) when rendering grows costly;
// long answers render as they would whole; model HTML never becomes a
// control or takes an app class.
import { describe, expect, it } from 'vitest';
import { render } from '@testing-library/svelte';
import { tick } from 'svelte';
import Markdown from './Markdown.svelte';
import type { Scheduler } from '../../lib/markdown';
import { longAnswer, pieces } from '../../lib/markdown.answer';

/** A clock that moves only when told (plus `cost` ms each time it is read), and delayed calls run by hand. */
function manual(cost = 0) {
  const s = {
    t: 0,
    pending: [] as Array<{ at: number; fn: () => void }>,
    now: () => (s.t += cost),
    later(ms: number, fn: () => void) {
      const entry = { at: s.t + ms, fn };
      s.pending.push(entry);
      return () => (s.pending = s.pending.filter((p) => p !== entry));
    },
    /** Moves the clock to the first pending call and runs it. */
    runNext() {
      const next = s.pending.shift();
      if (!next) throw new Error('nothing is pending');
      s.t = Math.max(s.t, next.at);
      next.fn();
    },
  };
  return s satisfies Scheduler;
}

describe('Markdown while streaming', () => {
  it('renders the open tail as markdown, not as raw ** and |', async () => {
    const scheduler = manual();
    const { container, rerender } = render(Markdown, { text: 'Here is **revenue', live: true, scheduler });
    await rerender({
      text: 'Here is **revenue by region** for Q3:\n\n| Region | Revenue |\n|---|---:|\n| North | 42.0k |',
      live: true,
      scheduler,
    });
    const md = container.querySelector('.md')!;
    expect(md.querySelector('strong')?.textContent).toBe('revenue by region');
    expect(md.querySelector('table td')?.textContent).toBe('North');
    expect(md.textContent).not.toMatch(/\*\*|\|/);
  });

  it('renders an unclosed code fence as a code block with its Copy button', async () => {
    const scheduler = manual();
    const { container } = render(Markdown, { text: 'Run:\n\n```sql\nSELECT 1', live: true, scheduler });
    expect(container.querySelector('.code-block pre code')?.textContent).toBe('SELECT 1');
    expect(container.querySelectorAll('button')).toHaveLength(1);
    expect(container.textContent).not.toContain('```');
  });

  // Long enough that the open blocks may be held back.
  const long = 'A long paragraph. '.repeat(500) + '\n\n';

  it('holds back a costly render of a long block and catches up when the wait is over', async () => {
    // Each reading of this clock adds 10 ms: a render costs 10 ms, so the next waits 100 ms.
    const scheduler = manual(10);
    const { container, rerender } = render(Markdown, { text: long + 'one **1**', live: true, scheduler });
    expect(container.querySelector('strong')?.textContent).toBe('1');
    await rerender({ text: long + 'one **1** two **2**', live: true, scheduler });
    expect(container.querySelectorAll('strong')).toHaveLength(1);
    expect(scheduler.pending).toHaveLength(1);
    // No more text comes; the delayed call alone brings the view up to date.
    scheduler.runNext();
    await tick();
    expect([...container.querySelectorAll('strong')].map((s) => s.textContent)).toEqual(['1', '2']);
    expect(scheduler.pending).toHaveLength(0);
  });

  it('appends words to the paragraph they are typed onto: same text node, selection kept', async () => {
    const scheduler = manual();
    const { container, rerender } = render(Markdown, { text: 'Intro\n\nHello wor', live: true, scheduler });
    const p = container.querySelectorAll('p')[1]!;
    const text = p.firstChild as Text;
    const selection = document.getSelection()!;
    selection.setBaseAndExtent(text, 0, text, 5);
    await rerender({ text: 'Intro\n\nHello world and more', live: true, scheduler });
    expect(container.querySelectorAll('p')[1]).toBe(p);
    expect(p.firstChild).toBe(text);
    expect(text.data).toBe('Hello world and more');
    expect(selection.toString()).toBe('Hello');
    // Markup arrives: the paragraph is built again, and matches the text.
    await rerender({ text: 'Intro\n\nHello world and **more**', live: true, scheduler });
    expect(container.querySelector('strong')?.textContent).toBe('more');
  });

  it('never holds back a short block, however slow the machine', async () => {
    const scheduler = manual(50);
    const { container, rerender } = render(Markdown, { text: 'one **1**', live: true, scheduler });
    await rerender({ text: 'one **1** two **2**', live: true, scheduler });
    expect(container.querySelectorAll('strong')).toHaveLength(2);
    expect(scheduler.pending).toHaveLength(0);
  });

  it('renders at once when the turn ends, held back or not', async () => {
    const scheduler = manual(10);
    const { container, rerender } = render(Markdown, { text: long + 'a *b*', live: true, scheduler });
    await rerender({ text: long + 'a *b* c *d*', live: true, scheduler });
    expect(container.querySelectorAll('em')).toHaveLength(1);
    await rerender({ text: long + 'a *b* c *d*', live: false, scheduler });
    expect(container.querySelectorAll('em')).toHaveLength(2);
  });
});

describe('Markdown streaming a long answer', () => {
  // Streams an answer of n blocks into the component, 40 characters an
  // update; returns, per update, how many nodes were added or removed
  // and how many texts changed under the view (a MutationObserver's
  // records), and the view.
  async function streamed(n: number) {
    const text = longAnswer(n);
    const scheduler = manual();
    const parts = pieces(text, 40);
    let shown = parts[0]!;
    const { container, rerender } = render(Markdown, { text: shown, live: true, scheduler });
    const md = container.querySelector('.md')!;
    const observer = new MutationObserver(() => {});
    observer.observe(md, { childList: true, subtree: true, characterData: true });
    const first = md.querySelector('h2')!;
    const touched: number[] = [];
    for (const part of parts.slice(1)) {
      shown += part;
      await rerender({ text: shown, live: true, scheduler });
      const records = observer.takeRecords();
      touched.push(records.reduce((sum, r) => sum + r.addedNodes.length + r.removedNodes.length + (r.type === 'characterData' ? 1 : 0), 0));
      // The first block, long finished, is the same element all along.
      expect(md.querySelector('h2')).toBe(first);
    }
    observer.disconnect();
    return { md, touched, text };
  }

  it('keeps the DOM nodes of finished blocks and touches as many nodes an update at 400 blocks as at 80', async () => {
    const short = await streamed(80);
    const long = await streamed(400);
    expect(long.md.textContent).toContain('Part 399');
    // The finished blocks went into chunks of 32 (moved, not rebuilt): the
    // largest update of each answer is one that moved a chunk's blocks.
    expect(long.md.querySelectorAll(':scope > .md-chunk').length).toBeGreaterThan(10);
    const max = (t: number[]) => Math.max(...t);
    expect(max(long.touched)).toBeLessThanOrEqual(max(short.touched));
    // Without its chunks, the DOM is the whole answer's.
    const flat = long.md.cloneNode(true) as Element;
    for (const chunk of flat.querySelectorAll('.md-chunk')) chunk.replaceWith(...chunk.childNodes);
    expect(flat.innerHTML).toBe(render(Markdown, { text: long.text }).container.querySelector('.md')!.innerHTML);
  }, 90_000);

  it("keeps a finished block's element from the moment it is finished to the end", async () => {
    const text = longAnswer(40);
    const scheduler = manual();
    const parts = pieces(text, 40);
    let shown = '';
    let kept: Element | null = null;
    const { container, rerender } = render(Markdown, { text: '', live: true, scheduler });
    for (const part of parts) {
      shown += part;
      await rerender({ text: shown, live: true, scheduler });
      const table = container.querySelector('table');
      // The table of block 4 is finished once block 6 has begun.
      if (!kept && table && shown.includes('Part 7')) kept = table;
      if (kept) expect(container.querySelector('table')).toBe(kept);
    }
    await rerender({ text, live: false, scheduler });
    expect(kept).not.toBeNull();
    expect(container.querySelector('table')).toBe(kept);
  }, 30_000);
});

describe('Markdown over long text', () => {
  const long = 'A long first paragraph. '.repeat(100);

  it("keeps a list item's continuation paragraph in its item, past 2,000 characters", () => {
    const { container } = render(Markdown, { text: `- ${long}\n\n    Continuation of the same item.\n\nAfter.` });
    expect(container.querySelector('pre')).toBeNull();
    const item = container.querySelector('li')!;
    expect(item.querySelectorAll('p')).toHaveLength(2);
    expect(item.textContent).toContain('Continuation of the same item.');
  });

  it('resolves a reference link whose definition is far below it', () => {
    const { container } = render(Markdown, { text: `See [the docs][docs].\n\n${long}\n\n${long}\n\n[docs]: https://example.com/docs` });
    const a = container.querySelector('a')!;
    expect(a.textContent).toBe('the docs');
    expect(a.getAttribute('href')).toBe('https://example.com/docs');
    expect(container.textContent).not.toContain('[docs]');
  });
});

describe('Markdown and model HTML', () => {
  it('shows a forged approval button as text: no control, no app class', () => {
    const { container } = render(Markdown, {
      text: '<button class="btn primary">Allow once</button>\n\n<input type=checkbox class="task-box" checked> <div class="turn" id="composer" style="position:fixed">x</div>',
    });
    const md = container.querySelector('.md')!;
    expect(md.textContent).toContain('Allow once');
    expect(md.querySelector('button, input, [class], [id], [style]')).toBeNull();
  });
});
