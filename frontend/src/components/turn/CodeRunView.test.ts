// A code run's card: the script highlighted, the output clamped with a
// button to show it all, the returned value, the error with its line and
// column or the limit hit in words, the steps and the time; a returned
// chart is left to its own chart event.
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen } from '@testing-library/svelte';
import CodeRunView, { describeCodeError } from './CodeRunView.svelte';
import type { CodeRunData } from '../../lib/types';

const base: CodeRunData = {
  code: 'total = 0\nfor r in sales:\n    total += r["amount"]\nprint(total)\nreturn total',
  output: '42\n',
  value: '42',
  steps: 1234,
  duration_ms: 12,
};

describe('CodeRunView', () => {
  it('shows the script highlighted, the output, the value, steps and time', () => {
    const { container } = render(CodeRunView, { data: base });
    const script = screen.getByRole('region', { name: 'Script' });
    expect(script.textContent).toBe(base.code);
    expect(script.querySelector('.hljs-keyword')?.textContent).toBe('for');
    expect(screen.getByRole('region', { name: 'Output' }).textContent).toBe('42\n');
    expect(screen.getByRole('region', { name: 'Returned value' }).textContent).toBe('42');
    expect(container.querySelector('.stats')?.textContent).toBe('1,234 steps · 12 ms');
    expect(container.querySelector('.pill')?.textContent).toBe('ok');
    expect(screen.queryByRole('button')).toBeNull();
  });

  it('shows script text as text, never as markup', () => {
    const code = 'print("<img src=x onerror=alert(1)>")  # <script>alert(2)</script>';
    const { container } = render(CodeRunView, { data: { ...base, code, output: '<b>not bold</b>' } });
    expect(screen.getByRole('region', { name: 'Script' }).textContent).toBe(code);
    expect(container.querySelector('img, script, b')).toBeNull();
  });

  it('names the line and column of an error', () => {
    render(CodeRunView, { data: { ...base, value: '', output: '', error: { message: 'undefined: totl', line: 3, col: 5 } } });
    const note = screen.getByRole('note');
    expect(note.querySelector('strong')?.textContent).toBe('Error at line 3, column 5');
    expect(note.textContent).toContain('undefined: totl');
    expect(screen.getByText('error')).toBeTruthy();
  });

  it.each([
    ['steps', 'Stopped: it ran more than the step limit'],
    ['memory', 'Stopped: it used more than the memory limit'],
    ['output', 'Stopped: it printed more than the output limit'],
    ['time', 'Stopped: it ran longer than the time limit'],
  ])('names the %s limit in words', (limit, words) => {
    expect(describeCodeError({ message: 'x', limit }).title).toBe(words);
    render(CodeRunView, { data: { ...base, error: { message: 'too many steps', limit } } });
    expect(screen.getByRole('note').querySelector('strong')?.textContent).toBe(words);
    expect(screen.getByText('stopped')).toBeTruthy();
  });

  it('clamps a long output and expands it with a button', async () => {
    const output = Array.from({ length: 40 }, (_, i) => `row ${i}`).join('\n');
    render(CodeRunView, { data: { ...base, output } });
    const out = screen.getByRole('region', { name: 'Output' });
    expect(out.classList.contains('clamped')).toBe(true);
    const more = screen.getByRole('button', { name: 'Show all output' });
    expect(more.getAttribute('aria-expanded')).toBe('false');
    expect(more.getAttribute('aria-controls')).toBe(out.id);
    await fireEvent.click(more);
    expect(out.classList.contains('clamped')).toBe(false);
    expect(more.getAttribute('aria-expanded')).toBe('true');
    expect(more.textContent?.trim()).toBe('Show less output');
  });

  it('leaves a returned chart to its chart event', () => {
    const { container } = render(CodeRunView, { data: { ...base, chart: { mark: 'bar' } } });
    expect(container.querySelector('.chart, svg.marks, .vega-embed')).toBeNull();
    expect(container.textContent).toContain('It returned a chart, drawn as a chart of this turn.');
  });
});
