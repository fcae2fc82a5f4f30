// axe-core (WCAG 2.1 AA rules) over the main states of the app, in light
// and in dark: the empty session; a conversation with a chart and its tool
// cards open; the diagnostics panel; settings; search results; a stopped
// turn; images waiting in the composer, in a turn, and one full size; the
// context meter's warning and details, and the Usage page with its charts;
// a session's settings (with a value refused) and its project's; the
// Documents panel with search results, an answer with citations (one
// unverified) and its Sources list, and the passage viewer; side by
// side: the targets picked, blind columns streaming and ended; the Arena
// page, with a board and its recent votes; "What changed", a re-run
// beside its original, and its long text shown whole; "Re-run from
// here": its editor (a tool step, a model call's settings) and the new
// version's divider; an artifact: its panel, its diff, full screen; a
// Mermaid diagram, its source, and one that does not parse; a turn's
// review editor open (with its label completion) and the review queue;
// the evaluation viewer: answers in the matrix, filtered and searched, a
// long one opened; a page whose code did not load.
// No serious or critical violation may remain. Each audit's counts
// by impact are written to build/e2e/a11y/<state>-<scheme>.json, so a run
// shows where the app stands even when it passes.
import { artifactPanel, frameOf, threeVersions } from './artifact';
import { audit } from './axe';
import { blindGroup, labels, voteFor } from './arena';
import { answer, composer, E2E_URL, expect, finished, newSession, openApp, pasteImages, send, shot, test, uid } from './fixtures';
import { openRun, runEval, viewSuite } from './evalview';
import { citedTurn } from './knowledge';
import { pickModel } from './models';
import { rerunPair } from './timetravel';

for (const scheme of ['light', 'dark'] as const) {
  test.describe(`axe, ${scheme}`, () => {
    test.beforeEach(async ({ page }) => {
      await page.emulateMedia({ colorScheme: scheme });
      expect(await page.evaluate(() => matchMedia('(prefers-color-scheme: dark)').matches)).toBe(scheme === 'dark');
    });

    test(`the empty session and settings (${scheme})`, async ({ page }) => {
      await newSession(page);
      await expect(page.getByRole('heading', { name: 'What should your agent do?' })).toBeVisible();
      await expect(composer(page)).toBeEditable();
      await audit(page, 'empty', scheme);

      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await expect(dialog).toBeVisible();
      for (const tab of ['Providers', 'Defaults & limits', 'Appearance', 'Prompts', 'Workflows']) {
        await dialog.getByRole('tab', { name: tab }).click();
        await expect(dialog.getByRole('tab', { name: tab })).toHaveAttribute('aria-selected', 'true');
        await expect(dialog.getByRole('tabpanel')).not.toBeEmpty();
        await audit(page, `settings-${tab.split(' ')[0].toLowerCase()}`, scheme);
      }
    });

    test(`side by side: the targets, blind columns streaming, and ended (${scheme})`, async ({ page }) => {
      await newSession(page);
      await page
        .getByRole('form', { name: 'Message' })
        .getByRole('button', { name: /^Side by side/ })
        .click();
      await pickModel(page, 'second', 'second-model', 'Model to add');
      await page.getByRole('button', { name: 'Add target' }).click();
      await page.getByRole('switch', { name: /Blind/ }).check();
      await expect(page.getByRole('list', { name: 'Targets' }).getByRole('listitem')).toHaveCount(2);
      await audit(page, 'sidebyside-targets', scheme);
      await composer(page).fill(`A blind race ${uid()}`);
      await composer(page).press('Enter');
      const columns = page.getByRole('article', { name: 'Side by side', exact: true });
      await expect(columns.getByRole('region', { name: 'Column A', exact: true })).toBeVisible();
      await expect(columns.getByRole('region', { name: 'Column B', exact: true })).toBeVisible();
      await expect(columns).toContainText('word3');
      await audit(page, 'sidebyside-streaming', scheme);
      await columns.getByRole('button', { name: 'Stop all' }).click();
      await expect(columns.getByRole('button', { name: /^Continue with this one/ })).toHaveCount(2);
      await audit(page, 'sidebyside-ended', scheme);
    });

    test(`an artifact: the panel, its diff, full screen (${scheme})`, async ({ page }) => {
      await threeVersions(page);
      await page.getByRole('article', { name: 'Turn 3', exact: true }).getByRole('button', { name: 'Open as artifact' }).click();
      const panel = artifactPanel(page);
      await expect(frameOf(page).locator('#out')).toHaveText('script ran v3');
      await audit(page, 'artifact', scheme);
      await panel.getByRole('button', { name: 'Diff', exact: true }).click();
      await expect(panel.getByTestId('artifact-diff').locator('ins').first()).toBeVisible();
      await audit(page, 'artifact-diff', scheme);
      await panel.getByRole('button', { name: 'Result', exact: true }).click();
      await panel.getByRole('button', { name: 'Full screen' }).click();
      await expect(panel).toHaveClass(/full/);
      await expect(frameOf(page).locator('#out')).toHaveText('script ran v3');
      await audit(page, 'artifact-full', scheme);
    });

    test(`the prompt library and the / palette (${scheme})`, async ({ page }) => {
      await page.getByRole('button', { name: 'Settings', exact: true }).click();
      const dialog = page.getByRole('dialog', { name: 'Settings' });
      await dialog.getByRole('tab', { name: 'Prompts' }).click();
      await dialog.getByRole('button', { name: 'New prompt' }).click();
      const form = dialog.getByRole('form', { name: 'New prompt' });
      await form.getByLabel('Name').fill(`Summarize ${uid()}`);
      await form.getByLabel('Text').fill('Sum up {{text}} in {{words}} words.');
      await audit(page, 'settings-prompts-editor', scheme);
      await form.getByRole('button', { name: 'Save prompt' }).click();
      await expect(dialog.getByRole('list', { name: 'Saved prompts' })).toContainText('{{text}}');
      await audit(page, 'settings-prompts-list', scheme);
      await page.keyboard.press('Escape');

      await newSession(page);
      await composer(page).fill('/summ');
      const palette = page.getByRole('listbox', { name: 'Prompts and commands' });
      await expect(palette.getByRole('option').first()).toContainText('Summarize');
      await audit(page, 'palette', scheme);
      await page.keyboard.press('Enter');
      await expect(page.getByRole('dialog', { name: /Summarize/ })).toBeVisible();
      await audit(page, 'palette-variables', scheme);
      await page.keyboard.press('Escape');
    });

    test(`a conversation with a chart and open tool cards, and its diagnostics (${scheme})`, async ({ page }) => {
      await newSession(page);
      const turn = await send(page, 'Chart revenue by region for Q3');
      await finished(turn);
      await expect(turn.getByRole('figure', { name: 'Revenue by region (Q3)' }).locator('svg.marks')).toBeVisible();
      await expect(answer(turn).last().getByRole('table')).toBeVisible();
      const tools = turn.locator('details.tool');
      expect(await tools.count()).toBeGreaterThan(0);
      for (const tool of await tools.all()) {
        await tool.locator('summary').click();
        await expect(tool).toHaveAttribute('open', '');
      }
      await audit(page, 'conversation', scheme);

      await turn.getByRole('button', { name: 'Diagnostics' }).click();
      const panel = page.getByRole('complementary', { name: 'Diagnostics' });
      await expect(panel.getByRole('region', { name: 'Totals' })).toContainText('succeeded');
      await expect(panel.getByRole('img', { name: /Timeline of the turn/ })).toBeVisible();
      await audit(page, 'diagnostics', scheme);
    });

    test(`search results (${scheme})`, async ({ page }) => {
      await newSession(page);
      const title = `Please remember this ${uid()}`;
      const turn = await send(page, title);
      await finished(turn);
      await newSession(page);
      await page.keyboard.press('Control+k');
      const box = page.getByRole('searchbox', { name: 'Search sessions' });
      await expect(box).toBeFocused();
      await box.fill('quixotically');
      await expect(page.getByRole('button').filter({ hasText: title }).locator('mark')).toHaveText([/^quixotically$/i]);
      await audit(page, 'search', scheme);
    });

    test(`a Mermaid diagram, its source, and one that does not parse (${scheme})`, async ({ page }) => {
      await newSession(page);
      const turn = await send(page, `Draw a mermaid diagram ${uid()}`);
      await finished(turn);
      const view = turn.locator('.mermaid-view');
      await expect(view).toHaveAttribute('data-state', 'drawn');
      await audit(page, 'mermaid', scheme);
      await view.getByRole('button', { name: 'Source' }).click();
      await expect(view.locator('pre.src')).toBeVisible();
      await audit(page, 'mermaid-source', scheme);
      const broken = await send(page, `Show a broken mermaid ${uid()}`);
      await finished(broken);
      await expect(broken.locator('.mermaid-view')).toHaveAttribute('data-state', 'error');
      await audit(page, 'mermaid-error', scheme);
    });

    test(`a stopped turn (${scheme})`, async ({ page }) => {
      await newSession(page);
      const turn = await send(page, `Answer slow please ${uid()}`);
      await expect(answer(turn).last()).toContainText('word20');
      await page.keyboard.press('Escape');
      await finished(turn);
      await expect(turn.getByText('Stopped', { exact: true })).toBeVisible();
      await audit(page, 'stopped', scheme);
    });

    test(`the context meter's warning and details, and the Usage page (${scheme})`, async ({ page }) => {
      await newSession(page);
      // scripts/e2e.sh's "small" provider: a 2,000-token window, priced.
      await pickModel(page.getByRole('form', { name: 'Message' }), 'small', 'smoke-model');
      await finished(await send(page, `Please remember the audit ${uid()}`));
      // About 85% of the window (near), then well past it (over): each warns in its colours.
      const meter = page.getByTestId('context-meter');
      const sentence = 'The quarterly figures by region, with the notes from every team. ';
      await composer(page).fill(sentence.repeat(170));
      await expect(meter).toHaveAttribute('data-state', /^(near|over)$/);
      await expect(page.getByTestId('context-warning')).toBeVisible();
      await meter.getByRole('button', { name: /tokens/ }).click();
      await expect(meter.getByRole('group', { name: 'What the next message would send' })).toBeVisible();
      await audit(page, 'meter', scheme);
      await page.keyboard.press('Escape');
      await composer(page).fill(sentence.repeat(400));
      await expect(meter).toHaveAttribute('data-state', 'over');
      await audit(page, 'meter-over', scheme);
      await composer(page).fill('');

      await page.getByRole('button', { name: 'Usage and cost' }).click();
      const usage = page.getByTestId('usage-page');
      await expect(
        usage.getByTestId('usage-chart-tokens').locator('svg.marks g.mark-rect.role-mark > path').filter({ visible: true }).first(),
      ).toBeVisible();
      await expect(
        usage.getByTestId('usage-chart-cached').locator('svg.marks g.mark-arc.role-mark > path').filter({ visible: true }).first(),
      ).toBeVisible();
      await expect(usage.getByTestId('usage-top-turns').getByRole('link').first()).toBeVisible();
      await audit(page, 'usage', scheme);
    });

    test(`a page whose code did not load (${scheme})`, async ({ page }) => {
      // Pages load when first opened (Lazy.svelte); a chunk that fails says so.
      await page.route(/\/assets\/UsagePage-[^/]*\.js$/, (route) => route.abort());
      await newSession(page);
      await page.getByRole('button', { name: 'Usage and cost' }).click();
      const failed = page.getByRole('alert').filter({ hasText: 'could not load' });
      await expect(failed).toBeVisible();
      await expect(failed.getByRole('button', { name: 'Try again' })).toBeVisible();
      await audit(page, 'lazy-failed', scheme);
      await shot(page, `browser-lazy-failed-${scheme}.png`);
    });

    test(`a session's settings and its project's (${scheme})`, async ({ page }) => {
      await newSession(page);
      await finished(await send(page, `Layers audit ${uid()}`));
      const sessionId = new URL(page.url()).hash.match(/^#\/s\/([^/]+)/)?.[1] ?? '';
      expect(sessionId).not.toBe('');
      // A project with instructions, and the session moved into it (the API, as the sidebar would).
      const project = `Research ${uid()}`;
      await page.evaluate(
        async ([name, sid]) => {
          const call = async (method: string, ...args: unknown[]) => {
            const res = await fetch(`/api/call/${method}`, {
              method: 'POST',
              headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${sessionStorage.getItem('agentdeck.token') ?? ''}` },
              body: JSON.stringify(args),
            });
            if (!res.ok) throw new Error(`${method}: ${res.status} ${await res.text()}`);
            return res.json();
          };
          const p = await call('CreateProject', { name, settings: { instructions: 'Cite your sources.', top_p: 0.9 } });
          await call('MoveSession', sid, p.id);
        },
        [project, sessionId],
      );
      await page.reload();
      await expect(page.getByRole('heading', { level: 1 })).not.toHaveText('New session');

      await page.getByRole('button', { name: 'Session settings' }).click();
      const dialog = page.getByRole('dialog', { name: 'Session settings' });
      await expect(dialog.getByRole('textbox', { name: 'Instructions (system prompt)' })).toHaveAttribute(
        'placeholder',
        'Cite your sources.',
      );
      await expect(dialog.getByText(`from project ${project}`).first()).toBeVisible();
      await dialog.getByRole('spinbutton', { name: 'Temperature' }).fill('3');
      await expect(dialog.getByText('temperature must be between 0 and 2 (got 3)')).toBeVisible();
      await audit(page, 'session-settings', scheme);
      await dialog.getByRole('spinbutton', { name: 'Temperature' }).fill('0.3');
      await dialog.getByRole('button', { name: 'Save' }).click();
      await expect(dialog).toBeHidden();
      await expect(page.getByTestId('session-own-settings')).toHaveText('T 0.3');

      await page.getByRole('button', { name: 'Session settings' }).click();
      await page.getByRole('button', { name: `Edit project ${project}’s defaults` }).click();
      const projectDialog = page.getByRole('dialog', { name: `Project settings: ${project}` });
      await expect(projectDialog.getByRole('textbox', { name: 'Name' })).toHaveValue(project);
      await audit(page, 'project-settings', scheme);
      await shot(page, `project-settings-${scheme}.png`);
    });

    test(`images in the composer, in a turn, and full size (${scheme})`, async ({ page }) => {
      await newSession(page);
      await pasteImages(page, [
        { name: 'wide.png', type: 'image/png', width: 2400, height: 900 },
        { name: 'photo.jpg', type: 'image/jpeg', width: 800, height: 600 },
      ]);
      await expect(page.getByRole('list', { name: 'Images to send' }).getByRole('img')).toHaveCount(2);
      await audit(page, 'images-composer', scheme);
      const turn = await send(page, `remember these ${uid()}`);
      await finished(turn);
      await expect(turn.getByRole('button', { name: 'Open wide.png' }).locator('img')).toBeVisible();
      await audit(page, 'images-turn', scheme);
      await turn.getByRole('button', { name: 'Open wide.png' }).click();
      await expect(page.getByRole('dialog', { name: 'wide.png' }).getByRole('img', { name: 'wide.png' })).toBeVisible();
      await audit(page, 'images-full', scheme);
    });

    test(`the Documents panel (${scheme})`, async ({ page }) => {
      await newSession(page);
      await finished(await send(page, `remember this ${uid()}`));
      await page.getByRole('button', { name: 'Documents', exact: true }).click();
      const panel = page.getByRole('dialog', { name: /^Documents · / });
      const chooser = page.waitForEvent('filechooser');
      await panel.getByRole('button', { name: 'Add files…' }).click();
      await (await chooser).setFiles({ name: 'notes.md', mimeType: 'text/markdown', buffer: Buffer.from('# Notes\n\nCosts fell 3%.\n') });
      await expect(panel.getByText('notes.md')).toBeVisible();
      await panel.getByRole('searchbox', { name: 'Search the documents' }).fill('costs');
      await panel.getByRole('button', { name: 'Search' }).click();
      await expect(panel.getByTestId('search-mode')).toBeVisible();
      await audit(page, 'documents', scheme);
      await shot(page, `documents-${scheme}.png`);
    });

    test(`citations, the Sources list and the passage viewer (${scheme})`, async ({ page }) => {
      const turn = await citedTurn(page);
      await turn.getByTestId('sources').locator('summary').click();
      await audit(page, 'citations', scheme);
      await turn
        .getByRole('button', { name: /^Source 1:/ })
        .first()
        .click();
      await expect(page.getByTestId('cited-passage')).toBeVisible();
      await audit(page, 'passage-viewer', scheme);
    });

    test(`a turn's review editor and the review queue (${scheme})`, async ({ page }) => {
      await newSession(page);
      const turn = await send(page, `time travel review audit ${uid()}`);
      await finished(turn);
      const seq = (await turn.getAttribute('aria-label'))!.replace('Turn ', '');
      await turn.getByRole('button', { name: `Bad: rate turn ${seq} down` }).click();
      await turn.getByRole('button', { name: `Review turn ${seq}: score, labels and note` }).click();
      await turn.getByRole('button', { name: 'Score 2 of 5' }).click();
      const labels = turn.getByRole('combobox', { name: `Labels of turn ${seq}` });
      await labels.fill('audit label');
      await labels.press('Enter');
      await expect(turn.getByTestId('review-line').last()).toContainText('audit label');
      await audit(page, 'review-editor', scheme);
      await page.keyboard.press('Control+Shift+E');
      const queue = page.getByTestId('review-queue');
      await expect(queue).toBeFocused();
      await expect(queue.getByTestId('queue-count')).toHaveText(/turns?/);
      await audit(page, 'review-queue', scheme);
    });

    test(`the Arena page (${scheme})`, async ({ page }) => {
      const g = await blindGroup(page);
      await voteFor(page, g, labels[0]!, 'Clearer.');
      await page.getByRole('button', { name: 'Arena', exact: true }).click();
      const arena = page.getByTestId('arena-page');
      await arena.getByRole('combobox', { name: 'Project' }).selectOption({ label: g.projectName });
      await expect(arena.getByTestId('arena-row')).toHaveCount(2);
      await expect(arena.getByTestId('arena-vote')).toHaveCount(1);
      await audit(page, 'arena', scheme);
      await shot(page, `arena-${scheme}.png`);
    });

    test(`What changed: a re-run beside its original (${scheme})`, async ({ page }) => {
      const pair = await rerunPair(page);
      await page.goto(`${E2E_URL}#/diff/${pair.original}/${pair.rerun}`);
      const view = page.getByTestId('diff-page');
      await expect(view.getByTestId('diff-row').first()).toContainText('edited');
      await audit(page, 'turndiff', scheme);
      await view.getByRole('button', { name: 'Show all' }).first().click();
      await audit(page, 'turndiff-open', scheme);
    });

    test(`"Re-run from here": the editor, and the new version's divider (${scheme})`, async ({ page }) => {
      test.setTimeout(180_000);
      await newSession(page);
      const turn = await send(page, `time travel audit ${uid()}`);
      await finished(turn);
      await turn.getByRole('button', { name: 'Re-run from here (tool result 1: update_plan)' }).click();
      const dialog = page.getByRole('dialog', { name: 'Re-run from here' });
      await expect(dialog.getByRole('textbox', { name: 'Tool result' })).toBeFocused();
      await audit(page, 'rerun-dialog', scheme);
      await dialog.getByRole('combobox', { name: 'Step' }).selectOption('call1');
      await dialog.getByRole('radio', { name: 'Model and sampling from here on' }).check();
      await audit(page, 'rerun-dialog-settings', scheme);
      await dialog.getByRole('combobox', { name: 'Step' }).selectOption('tool1');
      await dialog.getByRole('textbox', { name: 'Tool result' }).fill('Edited for the audit.');
      await dialog.getByRole('button', { name: 'Run' }).click();
      const rerun = page.getByRole('article', { name: 'Turn 2' });
      await finished(rerun);
      await expect(rerun.getByTestId('live-from')).toBeVisible();
      await audit(page, 'rerun-divider', scheme);
    });

    test(`the evaluation viewer: answers, filtered and searched, one opened (${scheme})`, async ({ page }) => {
      test.setTimeout(180_000);
      const name = `axe-view-${uid()}`;
      runEval(viewSuite(name));
      await openApp(page);
      const matrix = await openRun(page, name);
      await expect(matrix.getByTestId('eval-answer').first()).toBeVisible();
      const tall = matrix.locator('tr[data-case="tall"]').getByTestId('eval-result').first();
      await tall.getByRole('button', { name: /^Show more/ }).click();
      await expect(tall.getByTestId('eval-answer')).toContainText('Tall answer 47 ends.');
      await audit(page, 'evalview-open', scheme);
      await matrix.getByRole('combobox', { name: 'Outcome' }).selectOption('failed');
      await matrix.getByRole('searchbox', { name: 'Answer contains' }).fill('answered');
      await expect(matrix.getByTestId('eval-count')).toContainText('1 of 8 cells');
      await audit(page, 'evalview-filtered', scheme);
    });
  });
}
