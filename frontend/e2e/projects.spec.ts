// The sidebar grouped by project, in light and dark, under axe (see
// a11y.spec.ts): a new project, a session moved into it, pinned and
// tagged from its row's menu (the tag editor by keyboard), the tag
// filter, and the delete-project dialog with its count. Screenshots go to
// build/e2e/sidebar-*.png.
import { audit } from './axe';
import { expect, finished, newSession, pickFromMenu, send, shot, test, uid } from './fixtures';

for (const scheme of ['light', 'dark'] as const) {
  test(`the sidebar grouped by project, with a pin, tags and the delete-project dialog (${scheme})`, async ({ page }) => {
    await page.emulateMedia({ colorScheme: scheme });
    const id = uid();
    const name = `Project ${id}`;
    const list = page.getByRole('navigation', { name: 'Session list' });

    // A session, then a project, from the sidebar.
    await newSession(page);
    const title = `Sidebar row ${id}`;
    await finished(await send(page, title));
    await page.getByRole('button', { name: 'New project' }).click();
    const naming = page.getByRole('dialog', { name: 'New project' });
    await naming.getByLabel('Project name').fill(name);
    await naming.getByRole('button', { name: 'Create project' }).click();
    await expect(naming).toBeHidden();
    const header = list.getByRole('button', { name: new RegExp(`^${name}`) });
    await expect(header).toHaveAttribute('aria-expanded', 'true');

    // Moved into the project from its row's menu.
    const row = list.locator('li[data-session]').filter({ hasText: title });
    const menu = (item: string) => pickFromMenu(page, row, `More actions for ${title}`, item);
    await menu('Move to project…');
    const moving = page.getByRole('dialog', { name: `Move “${title}” to…` });
    await moving.getByRole('button', { name }).click();
    await expect(moving).toBeHidden();
    await expect(header).toContainText('1');
    await expect(list.locator('section').filter({ hasText: name }).locator('li[data-session]')).toHaveCount(1);

    // Tags, by keyboard: Enter adds, Backspace takes the last one off.
    await menu('Tags…');
    const tagging = page.getByRole('dialog', { name: `Tags of “${title}”` });
    const box = tagging.getByRole('combobox', { name: 'Add a tag' });
    await box.fill(`alpha${id}`);
    await box.press('Enter');
    await box.fill('beta');
    await box.press('Enter');
    await box.press('Backspace');
    await box.fill('<b>gamma</b>');
    await box.press('Enter');
    await expect(tagging.getByRole('button', { name: /^Remove tag / })).toHaveCount(2);
    await tagging.getByRole('button', { name: 'Save tags' }).click();
    await expect(tagging).toBeHidden();
    await expect(row.locator('.tag')).toHaveText(['<b>gamma</b>', `alpha${id}`]);

    // Pinned: first, in the Pinned group, with its pin.
    await menu('Pin to the top');
    const pinned = list.getByRole('button', { name: /^Pinned/ });
    await expect(pinned).toHaveAttribute('aria-expanded', 'true');
    await expect(row.getByTitle('Pinned')).toBeVisible();
    await audit(page, 'sidebar-projects', scheme);
    await shot(page, `sidebar-projects-${scheme}.png`);

    // The tag filter keeps the row alone, in one list.
    const filter = page.getByRole('combobox', { name: 'Filter by tag' });
    await filter.fill(`alpha${id}`);
    await filter.press('Enter');
    await expect(list.locator('li[data-session]')).toHaveCount(1);
    await audit(page, 'sidebar-tag-filter', scheme);
    await page.getByRole('button', { name: /^Clear the tag filter/ }).click();
    await expect(pinned).toBeVisible();
    await expect(header).toBeVisible();

    // Deleting the project asks what becomes of its one session.
    const head = list.locator('[data-row^="group:"]').filter({ has: page.getByRole('button', { name: new RegExp(`^${name}`) }) });
    await pickFromMenu(page, head, `Actions for project ${name}`, 'Delete project…');
    const deleting = page.getByRole('dialog', { name: `Delete the project “${name}”?` });
    await expect(deleting.getByTestId('delete-project-message')).toContainText('The project has 1 session.');
    await expect(deleting.getByRole('button', { name: 'Delete them too (1 session)' })).toBeVisible();
    await audit(page, 'delete-project', scheme);
    await shot(page, `sidebar-delete-project-${scheme}.png`);
    await deleting.getByRole('button', { name: 'Move them to No project' }).click();
    await expect(deleting).toBeHidden();
    await expect(header).toBeHidden();
    await expect(row).toBeVisible();
  });
}
