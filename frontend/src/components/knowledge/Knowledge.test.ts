// The knowledge screens over the fake backend: an answer's citations open
// the passage viewer (the passage highlighted with its page, or the turn's
// copy when the document changed or is gone), an unverified number is
// marked, the Sources list, and the Documents panel (add, remove with a
// confirm, search and the mode it says).
import { describe, expect, it } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { FakeBackend } from '../../lib/fake';
import { UNVERIFIED } from '../../lib/citations';

const REPORT = '# Results\n\n## Revenue\n\nRevenue grew 12% in the north.\f# Costs\n\nCosts fell 3% in the north office.';

async function openCited(opts: { removed?: boolean; changed?: boolean } = {}) {
  const b = new FakeBackend({ tick: 5, tokensPerTick: 50 });
  const s = b.addSession('Report', new Date(Date.now() - 60_000));
  const doc = b.knowledge.add({ session_id: s.id }, 'report.md', REPORT);
  b.addTurn(s.id, 'cite revenue north');
  if (opts.removed) b.knowledge.remove(doc.id);
  if (opts.changed) b.knowledge.docs = b.knowledge.docs.map((d) => (d.id === doc.id ? { ...d, version: 'v2' } : d));
  render(App, { backend: b });
  const nav = await screen.findByRole('navigation', { name: 'Session list' });
  await fireEvent.click(await within(nav).findByRole('button', { name: 'Report' }));
  const turn = await screen.findByRole('article', { name: 'Turn 1' });
  await within(turn).findAllByRole('button', { name: /^Source 1: report\.md/ });
  return { b, s, turn };
}

describe('citations in an answer', () => {
  it('links the numbers the turn was given and marks the one it was not', async () => {
    const { turn } = await openCited();
    expect(within(turn).getAllByRole('button', { name: /^Source 1: report\.md/ }).length).toBe(2);
    expect(within(turn).getAllByRole('button', { name: /^Source 2: report\.md, page 2$/ }).length).toBe(2);
    const unverified = turn.querySelectorAll('.cite-unverified');
    expect(unverified).toHaveLength(1);
    expect(unverified[0]!.getAttribute('title')).toBe(UNVERIFIED);
    expect(unverified[0]!.textContent).toMatch(/^9/);
  });

  it('opens the passage highlighted in the document, with its page and heading; Esc closes and focus returns', async () => {
    const { turn } = await openCited();
    const cite = within(turn).getAllByRole('button', { name: /^Source 2:/ })[0]!;
    cite.focus();
    await fireEvent.click(cite);
    const dialog = await screen.findByRole('dialog', { name: '[2] report.md' });
    expect(within(dialog).getByTestId('passage-where').textContent).toBe('page 2 · Costs');
    const cited = await within(dialog).findByTestId('cited-passage');
    expect(cited.querySelector('mark')?.textContent).toBe('Costs fell 3% in the north office.');
    expect(within(dialog).getByRole('heading', { name: 'Page 1' })).toBeTruthy();
    expect(within(dialog).getByText('Revenue grew 12% in the north.')).toBeTruthy();
    (dialog as HTMLDialogElement).close();
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    expect(document.activeElement).toBe(cite);
  });

  it("shows the turn's copy when the document was removed", async () => {
    const { turn } = await openCited({ removed: true });
    await fireEvent.click(within(turn).getAllByRole('button', { name: /^Source 1:/ })[0]!);
    const dialog = await screen.findByRole('dialog');
    expect((await within(dialog).findByRole('note')).textContent).toMatch(/was removed/);
    expect(within(dialog).getByTestId('cited-passage').textContent).toContain('Revenue grew 12% in the north.');
  });

  it("shows the turn's copy when the document changed", async () => {
    const { turn } = await openCited({ changed: true });
    await fireEvent.click(within(turn).getAllByRole('button', { name: /^Source 1:/ })[0]!);
    const dialog = await screen.findByRole('dialog');
    expect((await within(dialog).findByRole('note')).textContent).toMatch(/The document changed since this turn/);
  });

  it('lists the sources under the answer, collapsed, each opening its passage', async () => {
    const { turn } = await openCited();
    const list = within(turn).getByTestId('sources') as HTMLDetailsElement;
    expect(list.open).toBe(false);
    expect(within(list).getByText('Sources (2)')).toBeTruthy();
    await fireEvent.click(within(list).getByRole('button', { name: /\[1\] report\.md page 1 · Revenue/ }));
    expect(await screen.findByRole('dialog', { name: '[1] report.md' })).toBeTruthy();
  });

  it('gives the search tool card a friendly label', async () => {
    const { turn } = await openCited();
    expect(within(turn).getByText('Search documents for “revenue north”')).toBeTruthy();
  });
});

describe('the Documents panel', () => {
  async function openPanel() {
    const b = new FakeBackend({ tick: 5, tokensPerTick: 50 });
    const s = b.addSession('Report', new Date(Date.now() - 60_000));
    b.knowledge.add({ session_id: s.id }, 'report.md', REPORT);
    render(App, { backend: b });
    const nav = await screen.findByRole('navigation', { name: 'Session list' });
    await fireEvent.click(await within(nav).findByRole('button', { name: 'Report' }));
    await fireEvent.click(await screen.findByRole('button', { name: 'Documents' }));
    const dialog = await screen.findByRole('dialog', { name: 'Documents · Report' });
    await within(dialog).findByText('report.md');
    return { b, s, dialog };
  }

  it('lists the documents with their facts and says which search ranks the results', async () => {
    const { dialog } = await openPanel();
    expect(within(dialog).getByText(/Markdown · 2 pages · 2 passages · word search/)).toBeTruthy();
    await fireEvent.input(within(dialog).getByRole('searchbox', { name: 'Search the documents' }), { target: { value: 'costs' } });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Search' }));
    expect((await within(dialog).findByTestId('search-mode')).textContent).toBe(
      'Word search only — pick an embedding model in Settings for meaning search',
    );
    expect(within(dialog).getByText('Costs fell 3% in the north office.')).toBeTruthy();
  });

  it('adds a file: uploaded, then added as a document', async () => {
    const { b, dialog } = await openPanel();
    const input = dialog.querySelector<HTMLInputElement>('input[type=file]')!;
    const file = new File(['Notes about the plan.'], 'notes.txt', { type: 'text/plain' });
    await fireEvent.change(input, { target: { files: [file] } });
    await within(dialog).findByText('notes.txt');
    expect(b.calls.map((c) => c.method)).toEqual(expect.arrayContaining(['uploadAttachment', 'addDocument']));
  });

  it('says inline why a document could not be added', async () => {
    const { dialog } = await openPanel();
    await fireEvent.input(within(dialog).getByRole('textbox', { name: 'Web page address' }), { target: { value: 'ftp://x' } });
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Add web page' }));
    expect((await within(dialog).findByRole('alert')).textContent).toMatch(/starting with http/);
  });

  it('removes a document after a confirm that names it and keeps cited copies', async () => {
    const { b, dialog } = await openPanel();
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Remove report.md' }));
    const confirm = await screen.findByRole('dialog', { name: 'Remove report.md?' });
    expect(within(confirm).getByText(/Turns that cited it keep their own copies/)).toBeTruthy();
    await fireEvent.click(within(confirm).getByRole('button', { name: 'Remove' }));
    await within(dialog).findByText(/No documents yet/);
    expect(b.knowledge.docs).toHaveLength(0);
  });
});
