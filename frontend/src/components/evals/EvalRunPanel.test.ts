// Running a suite from the Evaluations page: the suite files are offered
// (a broken one with its problems, never run), Run starts the run with
// what was changed and shows it, progress shows as the backend tells it,
// and Stop stops it.
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';

afterEach(() => {
  history.replaceState(null, '', '/');
});

function withSuites() {
  const b = new FakeBackend();
  b.evalSuites_ = [
    { file: 'geo.yaml', path: '/data/evals/geo.yaml', name: 'geo', cases: 3, models: ['local/qwen3'], repeat: 1 },
    {
      file: 'broken.yaml',
      path: '/data/evals/broken.yaml',
      name: '',
      cases: 0,
      models: [],
      repeat: 0,
      problems: [{ file: 'broken.yaml', line: 4, column: 7, message: 'unknown field "contain" (did you mean "contains"?)' }],
    },
  ];
  return b;
}

/** Opens the Evaluations page, then its Run panel (it starts closed). */
async function openPanel(): Promise<HTMLElement> {
  await fireEvent.click(await screen.findByRole('button', { name: 'Evaluations' }));
  await fireEvent.click(await screen.findByRole('button', { name: /Run a suite/ }));
  return screen.findByRole('region', { name: 'Run a suite' });
}

describe('Run a suite', () => {
  it('runs the suite picked with what was changed, shows its progress, and stops it', async () => {
    const b = withSuites();
    render(App, { backend: b });
    const panel = await openPanel();
    const suite = (await within(panel).findByRole('combobox', { name: 'Suite' })) as HTMLSelectElement;
    await waitFor(() => expect(suite.value).toBe('geo.yaml'));
    expect([...suite.options].map((o) => o.value)).toEqual(['geo.yaml']); // the broken one cannot run
    expect(panel.textContent).toContain('1 suite file cannot run');
    expect(panel.textContent).toContain('line 4:7: unknown field "contain"');
    expect((within(panel).getByRole('textbox', { name: 'Models' }) as HTMLInputElement).value).toBe('local/qwen3');

    await fireEvent.input(within(panel).getByRole('spinbutton', { name: 'Repeat' }), { target: { value: '3' } });
    await fireEvent.click(within(panel).getByRole('button', { name: /Run$/ }));
    await waitFor(() => expect(b.calls.some((c) => c.method === 'startEval')).toBe(true));
    expect(b.calls.find((c) => c.method === 'startEval')?.args[0]).toMatchObject({
      file: 'geo.yaml',
      repeat: 3,
      capture: 'record',
      models: undefined,
    });
    await waitFor(() => expect(location.hash).toBe('#/evals/run-1'));

    // The backend tells how it goes.
    b.emitEvalProgress({ run_id: 'run-1', suite: 'geo', state: 'running', done: 4, planned: 9, passed: 3, failed: 1 });
    const going = await within(panel).findByRole('list', { name: 'Runs in progress' });
    await waitFor(() => expect(going.textContent).toContain('4 of 9 done · 3 passed, 1 not'));
    expect((within(going).getByRole('progressbar') as HTMLProgressElement).value).toBe(4);

    await fireEvent.click(within(going).getByRole('button', { name: /Stop/ }));
    await waitFor(() => expect(b.calls.some((c) => c.method === 'stopEval' && c.args[0] === 'run-1')).toBe(true));
    await waitFor(() => expect(within(panel).queryByRole('list', { name: 'Runs in progress' })).toBeNull());
  });

  it('reads the suite folder again on Refresh and on a run started here, not as runs go', async () => {
    const b = withSuites();
    render(App, { backend: b });
    const panel = await openPanel();
    await waitFor(() => expect((within(panel).getByRole('combobox', { name: 'Suite' }) as HTMLSelectElement).value).toBe('geo.yaml'));
    const count = (method: string) => b.calls.filter((c) => c.method === method).length;
    const suitesAtOpen = count('evalSuites');
    expect(suitesAtOpen).toBe(1);

    // Progress of a run (here, one from another window) reads the runs list again, never the suites.
    for (let done = 1; done <= 5; done++) {
      const runsBefore = count('evalRuns');
      b.emitEvalProgress({ run_id: 'elsewhere', suite: 'geo', state: 'running', done, planned: 9, passed: done, failed: 0 });
      await waitFor(() => expect(count('evalRuns')).toBeGreaterThan(runsBefore));
    }
    const runsBefore = count('evalRuns');
    b.emitEvalProgress({ run_id: 'elsewhere', suite: 'geo', state: 'completed', done: 9, planned: 9, passed: 9, failed: 0 });
    await waitFor(() => expect(count('evalRuns')).toBeGreaterThan(runsBefore));
    expect(count('evalSuites')).toBe(suitesAtOpen);

    // Refresh reads it exactly once more: no read the progress above set off was still on its way.
    await fireEvent.click(screen.getByRole('button', { name: /Refresh/ }));
    await waitFor(() => expect(count('evalSuites')).toBe(suitesAtOpen + 1));

    await fireEvent.click(within(panel).getByRole('button', { name: /Run$/ }));
    await waitFor(() => expect(count('evalSuites')).toBe(suitesAtOpen + 2));
  });

  it('says what went wrong when a run cannot start', async () => {
    const b = withSuites();
    b.evalSuites_[0]!.file = 'gone.yaml'; // listed, then removed: the fake finds no such file
    render(App, { backend: b });
    const panel = await openPanel();
    b.evalSuites_ = [];
    await fireEvent.click(await within(panel).findByRole('button', { name: /Run$/ }));
    expect((await within(panel).findByRole('alert')).textContent).toContain('There is no suite file gone.yaml');
  });
});
