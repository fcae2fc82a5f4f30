// The Evaluations page: reached from the sidebar and by its address, it
// lists the runs newest first, shows the selected run's models, charts and
// matrix (each result by an icon and a word, linked to its turn, with why
// it did not pass), compares two runs with regressions first, and says
// how to make a suite when there is none. A model's text is shown as text.
import { afterEach, describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { BackendError } from '../../lib/api';
import { FakeBackend } from '../../lib/fake';
import { seedEvals } from '../../lib/fake-evals';

afterEach(() => {
  history.replaceState(null, '', '/');
});

function seeded() {
  const b = new FakeBackend();
  b.providers = [
    {
      name: 'openai',
      kind: 'openai',
      base_url: 'https://api.openai.com/v1',
      local: false,
      needs_key: true,
      models: ['gpt-4o-mini'],
      has_key: true,
      masked_key: '••••abcd',
    },
  ];
  b.settings.default_provider = 'openai';
  b.settings.default_model = 'gpt-4o-mini';
  b.addSession('A chat', new Date(), 1);
  const ids = seedEvals(b, new Date(2026, 0, 15, 12));
  return { b, ids };
}

async function openEvals() {
  await fireEvent.click(await screen.findByRole('button', { name: 'Evaluations' }));
  return screen.findByTestId('evals-page');
}

/** The matrix once the shown run's report is in. */
async function matrixOf(page: HTMLElement) {
  return within(page).findByTestId('eval-matrix');
}

function cell(matrix: HTMLElement, caseId: string, index: number): HTMLElement {
  const row = matrix.querySelector<HTMLElement>(`tr[data-case="${caseId}"]`)!;
  return row.querySelectorAll<HTMLElement>('td .cell')[index]!;
}

describe('Evaluations page', () => {
  it('lists the runs newest first and shows the newest, from the sidebar', async () => {
    const { b } = seeded();
    render(App, { backend: b });
    const page = await openEvals();
    expect(window.location.hash).toBe('#/evals');
    expect(screen.getByRole('button', { name: 'Evaluations' }).getAttribute('aria-current')).toBe('page');

    const list = await within(page).findByRole('navigation', { name: 'Runs' });
    const links = await within(list).findAllByRole('link');
    expect(links.map((a) => a.dataset.run)).toEqual(['r-newest', 'r-older', 'r-other']);
    expect(links[0]!.getAttribute('aria-current')).toBe('page');
    expect(links[0]!.textContent).toMatch(/geography\s*7\/13\spassed of 16/);
    expect(links[0]!.textContent).toContain('replay');
    expect(links[0]!.textContent).toContain('Running');
    expect(links[1]!.textContent).toContain('record');
    expect(links[2]!.textContent).toContain('Cancelled');
    expect(links[2]!.textContent).toMatch(/smoke\s*0\/1/);

    const run = await within(page).findByTestId('eval-run');
    expect(run.dataset.run).toBe('r-newest');
    expect(within(run).getByRole('heading', { level: 2, name: 'geography' })).toBeTruthy();
    expect(within(run).getByTestId('eval-run-state').textContent).toBe('Running');
    expect(within(run).getByTestId('eval-run-total').textContent).toContain('7/13 passed (53%) · 13 of 16 run');
    expect(run.textContent).toContain('still running');
    // A replay names the run it replays, as a link to it.
    expect(
      within(run)
        .getByRole('link', { name: /the run of/ })
        .getAttribute('href'),
    ).toBe('#/evals/r-older');
    const models = within(run).getByTestId('eval-models');
    expect(within(models).getByRole('rowheader', { name: 'ollama/llama3.2' }).closest('tr')!.textContent).toMatch(
      /1\/2.*2 errors, 1 running.*50%.*unknown/,
    );
  });

  it('moves between runs with the arrow keys and opens one, which the address keeps', async () => {
    const { b } = seeded();
    render(App, { backend: b });
    const page = await openEvals();
    const list = await within(page).findByRole('navigation', { name: 'Runs' });
    const links = await within(list).findAllByRole('link');
    expect(links.map((a) => a.tabIndex)).toEqual([0, -1, -1]);
    links[0]!.focus();
    await fireEvent.keyDown(links[0]!, { key: 'ArrowDown' });
    expect(document.activeElement).toBe(links[1]);
    await fireEvent.keyDown(links[1]!, { key: 'End' });
    expect(document.activeElement).toBe(links[2]);
    await fireEvent.keyDown(links[2]!, { key: 'ArrowUp' });
    await fireEvent.click(links[1]!);
    await waitFor(() => expect(within(page).getByTestId('eval-run').dataset.run).toBe('r-older'));
    expect(window.location.hash).toBe('#/evals/r-older');
    expect(within(list).getAllByRole('link')[1]!.getAttribute('aria-current')).toBe('page');
  });

  it('shows the matrix: cases in order, models × repeats, each result by icon and word, linked to its turn', async () => {
    const { b, ids } = seeded();
    render(App, { backend: b });
    const page = await openEvals();
    const matrix = await matrixOf(page);
    expect([...matrix.querySelectorAll('tbody tr')].map((r) => (r as HTMLElement).dataset.case)).toEqual([
      'capital',
      'berlin',
      'json-answer',
      'follow-up',
    ]);
    const heads = [...matrix.querySelectorAll('thead th')].map((th) => th.textContent!.trim());
    expect(heads).toEqual([
      'Case',
      'openai/gpt-4o-mini',
      'ollama/llama3.2',
      'openai/gpt-4o-mini, repeat #1',
      'openai/gpt-4o-mini, repeat #2',
      'ollama/llama3.2, repeat #1',
      'ollama/llama3.2, repeat #2',
    ]);
    // The prompt's start under the case id, as text.
    const berlin = matrix.querySelector('tr[data-case="berlin"] th')!;
    expect(berlin.textContent).toContain('Answer <b>only</b> the city.');
    expect(berlin.querySelector('b')).toBeNull();
    expect(matrix.querySelector('tr[data-case="follow-up"] th')!.textContent).toContain('And another?');

    const states = (caseId: string) =>
      [0, 1, 2, 3].map((i) => `${cell(matrix, caseId, i).dataset.state ?? '-'}:${cell(matrix, caseId, i).textContent!.trim()}`);
    expect(states('capital')).toEqual(['passed:Passed', 'passed:Passed', 'failed:Failed', 'passed:Passed']);
    expect(states('berlin')).toEqual(['passed:Passed', 'cancelled:Cancelled', 'error:Error', 'error:Error']);
    expect(states('json-answer')).toEqual(['passed:Passed', 'passed:Passed', 'running:Running', '-:–']);
    expect(states('follow-up')).toEqual(['passed:Passed 0.72', 'failed:Failed 0.40', '-:–', '-:–']);
    // Each says what it is, not only by colour: an icon and its word, in its name too.
    expect(cell(matrix, 'capital', 2).getAttribute('aria-label')).toBe('capital, ollama/llama3.2, repeat 1: Failed');
    expect(cell(matrix, 'follow-up', 0).getAttribute('aria-label')).toBe('follow-up, openai/gpt-4o-mini, repeat 1: Passed 0.72');
    expect(cell(matrix, 'capital', 2).querySelector('svg')).toBeTruthy();

    // A result that ran is a link to its turn; an error before any turn is not.
    const first = cell(matrix, 'capital', 0);
    expect(first.tagName).toBe('A');
    expect(first.getAttribute('href')).toBe(`#/s/${ids.capitalTurn.sessionId}/t/${ids.capitalTurn.turnId}`);
    expect(cell(matrix, 'berlin', 2).tagName).toBe('BUTTON');
    expect(cell(matrix, 'berlin', 2).getAttribute('href')).toBeNull();

    await fireEvent.click(first);
    await waitFor(() => expect(screen.queryByTestId('evals-page')).toBeNull());
    expect(await screen.findByRole('article', { name: 'Turn 1' })).toBeTruthy();
    expect(window.location.hash).toBe(`#/s/${ids.capitalTurn.sessionId}/t/${ids.capitalTurn.turnId}`);
  });

  it('says why a result did not pass, on hover and on focus, as text', async () => {
    const { b } = seeded();
    render(App, { backend: b });
    const page = await openEvals();
    const matrix = await matrixOf(page);
    const failed = cell(matrix, 'capital', 2);
    const why = 'contains: the answer does not contain "Paris" (case-sensitive); the answer starts "<img src=x onerror=alert(1)> paris"';
    expect(failed.getAttribute('title')).toBe(why);
    expect(cell(matrix, 'capital', 0).getAttribute('title')).toBeNull();

    const strip = within(page).getByTestId('eval-why');
    failed.focus();
    await waitFor(() => expect(strip.textContent).toContain(why));
    expect(strip.textContent).toMatch(/capital · ollama\/llama3.2 #1 · Failed/);
    expect(page.querySelector('img')).toBeNull();

    const error = cell(matrix, 'berlin', 3);
    await fireEvent.mouseEnter(error);
    await waitFor(() => expect(strip.textContent).toContain('Error: the provider "ollama" is not running: connection refused'));
    expect(error.getAttribute('title')).toBe('the provider "ollama" is not running: connection refused');
  });

  it('draws pass rate and latency with the chart renderer, and says a cost no one priced is unknown', async () => {
    const { b } = seeded();
    render(App, { backend: b });
    const page = await openEvals();
    for (const id of ['pass-rate', 'latency']) {
      const chart = await within(page).findByTestId(`eval-chart-${id}`);
      await waitFor(() => expect(chart.querySelector('svg.marks g.mark-rect path')).toBeTruthy());
    }
    expect(within(page).queryByTestId('eval-chart-cost')).toBeNull();
    expect(within(page).getByTestId('eval-cost-unknown').textContent).toContain('Unknown.');
    expect(within(page).getByTestId('eval-cost-unknown').textContent).toContain('(12 unpriced)');

    // The older run has prices for one model: its cost is drawn, the other's labelled unknown.
    await fireEvent.click(
      within(page)
        .getAllByRole('link')
        .find((a) => a.dataset.run === 'r-older')!,
    );
    const cost = await within(page).findByTestId('eval-chart-cost');
    await waitFor(() => expect(cost.querySelector('svg.marks g.mark-rect path')).toBeTruthy());
    await waitFor(() =>
      expect([...cost.querySelectorAll('svg.marks text')].map((t) => t.textContent)).toEqual(
        expect.arrayContaining(['unknown', '$0.0046']),
      ),
    );
  });

  it('compares with another run: regressions first and marked, both sides linked, swapped, and back', async () => {
    const { b } = seeded();
    render(App, { backend: b });
    const page = await openEvals();
    const run = await within(page).findByTestId('eval-run');
    const select = within(run).getByRole('combobox', { name: 'Compare with…' }) as HTMLSelectElement;
    const groups = [...select.querySelectorAll('optgroup')].map((g) => [g.label, [...g.querySelectorAll('option')].map((o) => o.value)]);
    expect(groups).toEqual([
      ['This suite', ['r-older']],
      ['Other suites', ['r-other']],
    ]);
    await fireEvent.change(select, { target: { value: 'r-older' } });
    const diff = await within(page).findByTestId('eval-diff');
    expect(window.location.hash).toBe('#/evals/r-newest/diff/r-older');
    expect(b.calls.filter((c) => c.method === 'evalDiff').at(-1)!.args).toEqual(['r-older', 'r-newest']);

    // A result still running is not a regression yet.
    await waitFor(() => expect(within(diff).getByTestId('eval-diff-regressions').textContent).toBe('4 regressions'));
    expect(within(diff).getByTestId('eval-diff-running').textContent).toBe('1 still running, not compared yet');
    expect(within(diff).getByTestId('eval-diff-fixes').textContent).toBe('2 fixed');
    expect(within(diff).getByTestId('eval-diff-same').textContent).toBe('5 passed in both');
    const rows = [...diff.querySelectorAll<HTMLElement>('tbody tr')];
    const changes = rows.map((r) => r.dataset.change);
    expect(changes.slice(0, 4)).toEqual(Array(4).fill('regression'));
    expect(changes.indexOf('fix')).toBe(4);
    expect(changes).toContain('running');
    const capital = rows.find((r) => r.textContent!.includes('capital') && r.textContent!.includes('ollama/llama3.2'))!;
    expect(capital.dataset.change).toBe('regression');
    expect(capital.querySelector('.change')!.textContent!.trim()).toBe('Regression');
    // A (the older run) passed, B (this one) failed: both open their turns.
    const [a, bSide] = [...capital.querySelectorAll<HTMLElement>('.cell')];
    expect([a!.dataset.state, bSide!.dataset.state]).toEqual(['passed', 'failed']);
    expect(a!.getAttribute('href')).toMatch(/^#\/s\/[^/]+\/t\/[^/]+$/);
    expect(bSide!.getAttribute('href')).toMatch(/^#\/s\/[^/]+\/t\/[^/]+$/);
    expect(a!.getAttribute('href')).not.toBe(bSide!.getAttribute('href'));

    await fireEvent.click(within(diff).getByRole('button', { name: /Swap sides/ }));
    await waitFor(() => expect(window.location.hash).toBe('#/evals/r-older/diff/r-newest'));
    await waitFor(() => expect(within(page).getByTestId('eval-diff-regressions').textContent).toBe('2 regressions'));

    await fireEvent.click(within(page).getByRole('button', { name: /Back to the run/ }));
    await waitFor(() => expect(within(page).getByTestId('eval-run').dataset.run).toBe('r-older'));
    expect(window.location.hash).toBe('#/evals/r-older');
  });

  it('opens a run or a comparison the address names', async () => {
    const { b } = seeded();
    history.replaceState(null, '', '/#/evals/r-other');
    const first = render(App, { backend: b });
    const page = await screen.findByTestId('evals-page');
    await waitFor(() => expect(within(page).getByTestId('eval-run').dataset.run).toBe('r-other'));
    first.unmount();

    history.replaceState(null, '', '/#/evals/r-newest/diff/r-older');
    render(App, { backend: b });
    expect(await screen.findByTestId('eval-diff')).toBeTruthy();
  });

  it('says a run the address names is not there', async () => {
    const { b } = seeded();
    history.replaceState(null, '', '/#/evals/nope');
    render(App, { backend: b });
    const page = await screen.findByTestId('evals-page');
    expect((await within(page).findByRole('alert')).textContent).toContain('There is no evaluation run nope.');
  });

  it('says how to make a suite when there is no run', async () => {
    const b = new FakeBackend();
    history.replaceState(null, '', '/#/evals');
    render(App, { backend: b });
    const empty = await screen.findByTestId('evals-empty');
    expect(empty.textContent).toContain('No evaluation runs yet');
    expect(empty.textContent).toContain('agentdeck eval SUITE.yaml');
    // An installed copy has no docs folder: nothing sends the person to one.
    expect(empty.textContent).not.toMatch(/docs\//);
    expect(screen.getByTestId('evals-actions')).toBeTruthy();
  });

  // A panel that opened itself made the first click on its button close it.
  it.each([
    ['there is no run', () => new FakeBackend()],
    ['a run is going', () => seeded().b],
  ])('starts with the Run panel closed when %s, and Run a suite… opens it', async (_name, make) => {
    const b = make();
    history.replaceState(null, '', '/#/evals');
    render(App, { backend: b });
    await screen.findByTestId((id) => id === 'evals-empty' || id === 'eval-runs');
    const toggle = screen.getByRole('button', { name: /Run a suite/ });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    expect(screen.queryByRole('region', { name: 'Run a suite' })).toBeNull();
    await fireEvent.click(toggle);
    expect(toggle.getAttribute('aria-expanded')).toBe('true');
    expect(await screen.findByRole('region', { name: 'Run a suite' })).toBeTruthy();
  });

  it('creates the example suite from the empty state and opens the Run panel on it', async () => {
    const b = new FakeBackend();
    history.replaceState(null, '', '/#/evals');
    render(App, { backend: b });
    const empty = await screen.findByTestId('evals-empty');
    await fireEvent.click(within(empty).getByRole('button', { name: 'Create an example suite' }));
    expect((await within(empty).findByRole('status')).textContent).toContain('/tmp/evals/example.yaml');
    expect(b.calls.filter((c) => c.method === 'createExampleSuite')).toHaveLength(1);
    const panel = await screen.findByRole('region', { name: 'Run a suite' });
    const suite = await within(panel).findByRole('combobox', { name: 'Suite' });
    await waitFor(() => expect((suite as HTMLSelectElement).value).toBe('example.yaml'));
  });

  it('says why the example suite was not written', async () => {
    const b = new FakeBackend();
    b.createExampleSuite = async () => {
      throw new BackendError(
        'conflict',
        'The evaluations folder already has a example.yaml of its own; rename or move it to create the example there.',
      );
    };
    history.replaceState(null, '', '/#/evals');
    render(App, { backend: b });
    const empty = await screen.findByTestId('evals-empty');
    await fireEvent.click(within(empty).getByRole('button', { name: 'Create an example suite' }));
    expect((await within(empty).findByRole('alert')).textContent).toContain('already has a example.yaml of its own');
    expect(screen.queryByRole('region', { name: 'Run a suite' })).toBeNull();
  });
});
