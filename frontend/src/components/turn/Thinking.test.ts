// The Thinking block and the waiting note (issue 19): the reasoning shows
// live, then folds to how long it took, always as text; a call that has
// received nothing says it waits, with the seconds ticking, announced once.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';
import type { ThinkingBlock, WaitingCall } from '../../lib/stores/turnview';
import ThinkingView from './ThinkingView.svelte';
import WaitingNote from './WaitingNote.svelte';

const block = (over: Partial<ThinkingBlock> = {}): ThinkingBlock => ({
  kind: 'thinking',
  id: 'th1',
  stageId: '',
  text: 'Let me think.',
  firstAt: '2025-01-01T00:00:01.000Z',
  lastAt: '2025-01-01T00:00:13.200Z',
  done: true,
  ...over,
});

const summaryOf = (c: HTMLElement) => c.querySelector('summary')!.textContent!.trim();

describe('ThinkingView', () => {
  it('shows the reasoning live, open under "Thinking…"', () => {
    const { container } = render(ThinkingView, { block: block({ done: false }) });
    expect(summaryOf(container)).toBe('Thinking…');
    expect(container.querySelector('details')!.open).toBe(true);
    expect(container.querySelector('.dots')).toBeTruthy();
    expect(screen.getByText('Let me think.')).toBeTruthy();
  });

  it.each([
    ['12 s', '2025-01-01T00:00:13.200Z'],
    ['1 s', '2025-01-01T00:00:02.200Z'],
    ['less than a second', '2025-01-01T00:00:01.063Z'],
    ['less than a second', '2025-01-01T00:00:01.000Z'],
    ['1 min 5 s', '2025-01-01T00:01:06.000Z'],
  ])('folds to "Thought for %s" once the call moved on', (want, lastAt) => {
    const { container } = render(ThinkingView, { block: block({ lastAt }) });
    expect(summaryOf(container)).toBe(`Thought for ${want}`);
    expect(container.querySelector('details')!.open).toBe(false);
    expect(container.querySelector('.dots')).toBeNull();
  });

  it('says only "Thought" when the times are unknown (a turn rebuilt from its messages)', () => {
    const { container } = render(ThinkingView, { block: block({ firstAt: '', lastAt: '' }) });
    expect(summaryOf(container)).toBe('Thought');
  });

  it('folds when the block is done, and opens again on a click', async () => {
    const { container, rerender } = render(ThinkingView, { block: block({ done: false }) });
    const details = container.querySelector('details')!;
    await rerender({ block: block() });
    expect(details.open).toBe(false);
    expect(summaryOf(container)).toBe('Thought for 12 s');
    await fireEvent.click(container.querySelector('summary')!);
    expect(details.open).toBe(true);
    expect(container.querySelector('[data-testid="reasoning"]')!.textContent).toBe('Let me think.');
  });

  it('shows reasoning as text, never as HTML', () => {
    const text = 'Maybe <img src=x onerror="window.__pwned=1"> or <b>bold</b>\n  and **stars**';
    const { container } = render(ThinkingView, { block: block({ text, done: false }) });
    expect(container.querySelector('img, b, strong')).toBeNull();
    expect(container.querySelector('[data-testid="reasoning"]')!.textContent).toBe(text);
    expect((window as unknown as { __pwned?: number }).__pwned).toBeUndefined();
  });
});

describe('WaitingNote', () => {
  afterEach(() => vi.useRealTimers());

  const waiting = (since: string, waitedMs = 3000): WaitingCall => ({ stageId: '', since, waitedMs });

  it('says it waits, with the seconds since the call started ticking', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    vi.setSystemTime(new Date('2025-01-01T00:00:12.300Z'));
    const { container } = render(WaitingNote, { waiting: waiting('2025-01-01T00:00:00.000Z') });
    const note = container.querySelector('[data-testid="waiting"]')!;
    expect(note.textContent!.replace(/\s+/g, ' ').trim()).toBe('Waiting for the model (it may be loading)… 12 s');
    await vi.advanceTimersByTimeAsync(1000);
    expect(note.textContent).toContain('13 s');
    await vi.advanceTimersByTimeAsync(60_000);
    expect(note.textContent).toContain('1 min 13 s');
  });

  it('is announced once: the ticking seconds are outside its status region', () => {
    render(WaitingNote, { waiting: waiting(new Date(Date.now() - 5000).toISOString()) });
    const status = screen.getByRole('status');
    expect(status.textContent).toBe('Waiting for the model (it may be loading)…');
    expect(status.getAttribute('aria-live')).not.toBe('assertive');
  });

  it('never shows less than the wait the backend measured (a clock behind the server)', () => {
    const { container } = render(WaitingNote, { waiting: waiting(new Date(Date.now() + 60_000).toISOString(), 4000) });
    expect(container.textContent).toContain('4 s');
  });

  it('keeps an empty status region while nothing waits, and stops ticking', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'] });
    const { container, rerender } = render(WaitingNote, { waiting: waiting(new Date().toISOString()) });
    await rerender({ waiting: null });
    expect(screen.getByRole('status').textContent).toBe('');
    expect(container.textContent!.trim()).toBe('');
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('a turn that thinks, in the window', () => {
  it('streams the thinking live, folds it once the answer comes, and keeps it out of the answer and Copy', async () => {
    const b = new FakeBackend({ tick: 5, tokensPerTick: 4 });
    b.providers = [
      {
        name: 'ollama',
        kind: 'ollama',
        base_url: 'http://127.0.0.1:11434/v1',
        local: true,
        needs_key: false,
        models: ['llama3.2:3b'],
        has_key: false,
        masked_key: '',
      },
    ];
    b.settings.default_provider = 'ollama';
    b.settings.default_model = 'llama3.2:3b';
    const s = b.addSession('Reasoning', new Date(Date.now() - 60_000));
    render(App, { backend: b });
    const nav = await screen.findByRole('navigation', { name: 'Session list' });
    await fireEvent.click(await within(nav).findByRole('button', { name: 'Reasoning' }));
    const composer = screen.getByRole('form', { name: 'Message' });
    await fireEvent.input(within(composer).getByRole('textbox', { name: 'Message' }), { target: { value: 'think about it' } });
    await fireEvent.click(within(composer).getByRole('button', { name: 'Send' }));

    const turn = await screen.findByRole('article', { name: 'Turn 1' });
    const live = await waitFor(() => {
      const d = turn.querySelector<HTMLDetailsElement>('[data-testid="thinking"]');
      expect(d?.querySelector('summary')?.textContent).toContain('Thinking…');
      return d!;
    });
    expect(live.open).toBe(true);
    expect(turn.textContent).not.toContain('Here is what I found.');

    await within(turn).findByRole('button', { name: /Replay/ });
    const done = turn.querySelector<HTMLDetailsElement>('[data-testid="thinking"]')!;
    expect(done.querySelector('summary')!.textContent).toMatch(/Thought for (\d+ s|less than a second)/);
    expect(done.open).toBe(false);
    expect(done.textContent).toContain('The person wants to know how the regions compare.');

    const md = turn.querySelector('.md')!;
    expect(md.textContent).toContain('Here is what I found.');
    expect(md.textContent).not.toContain('The person wants');
    const writeText = vi.fn(async (_text: string) => {});
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    await fireEvent.click(within(turn).getByRole('button', { name: 'Copy the answer' }));
    await waitFor(() => expect(writeText).toHaveBeenCalled());
    expect(writeText.mock.calls[0]![0]).toContain('Here is what I found.');
    expect(writeText.mock.calls[0]![0]).not.toContain('The person wants');
    const stored = [...b.turns.values()].find((t) => t.session_id === s.id)!;
    expect(stored.final_text).toContain('Here is what I found.');
    expect(stored.final_text).not.toContain('The person wants');
  });
});
