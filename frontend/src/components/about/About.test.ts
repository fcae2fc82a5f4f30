// The About box: opened from the version in the sidebar's footer (and from
// Settings), it shows the build, the platform, the data folder and the
// database's size, copies all of it as text for a bug report, opens the
// project's links outside the app, and closes with Esc.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, waitFor, within } from '@testing-library/svelte';
import App from '../../App.svelte';
import { aboutDetails, pathPieces } from '../../lib/about';
import { FakeBackend } from '../../lib/fake';
import AppIcon from './AppIcon.svelte';

const LONG = '0.0.0~git20261203.f3138d4.dirty';

function backend(version = '0.9.1') {
  const b = new FakeBackend();
  b.version_ = version;
  b.about_ = {
    ...b.about_,
    commit: 'f3138d4a9b2c',
    go_version: 'go1.26.8',
    os: 'linux',
    arch: 'amd64',
    data_dir: '/home/ada/.local/share/agentdeck',
    db_path: '/home/ada/.local/share/agentdeck/agentdeck.db',
    db_bytes: 13_002_342,
    log_path: '/home/ada/.local/share/agentdeck/agentdeck.log',
  };
  Object.assign(b, { uiReady: vi.fn().mockResolvedValue(undefined) });
  return b;
}

async function openAbout(b: FakeBackend) {
  render(App, { backend: b });
  const version = await screen.findByRole('button', { name: `About Agentdeck v${b.version_}` });
  version.focus(); // as a click does in a browser
  await fireEvent.click(version);
  const dialog = await screen.findByRole('dialog', { name: 'About Agentdeck' });
  await waitFor(() => expect(within(dialog).getByTestId('about-commit').textContent).toBe('f3138d4a9b2c'));
  return { dialog, version };
}

afterEach(() => {
  Reflect.deleteProperty(navigator, 'clipboard');
});

describe('About', () => {
  it('opens from the version in the footer and shows the build, the platform and the data', async () => {
    const b = backend();
    const { dialog } = await openAbout(b);
    const text = (id: string) => within(dialog).getByTestId(id).textContent?.trim();
    expect(text('about-version')).toBe('0.9.1');
    expect(text('about-platform')).toBe('go1.26.8 for linux/amd64');
    expect(text('about-data-dir')).toBe('/home/ada/.local/share/agentdeck');
    expect(text('about-db-path')).toBe('/home/ada/.local/share/agentdeck/agentdeck.db');
    expect(text('about-db-size')).toBe('12.4 MB');
    expect(within(dialog).getByTestId('about-db-size').title).toBe('13,002,342 bytes, with its -wal and -shm files');
    expect(text('about-log')).toBe('/home/ada/.local/share/agentdeck/agentdeck.log');
    expect(within(dialog).queryByTestId('about-db-error')).toBeNull();
    expect(within(dialog).getByText('Agentdeck', { selector: '.name' })).toBeTruthy();
    expect(b.calls.filter((c) => c.method === 'about')).toHaveLength(1);
  });

  it('copies every fact as plain text for a bug report, and says so', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const b = backend(LONG);
    const { dialog } = await openAbout(b);
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Copy details' }));
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Copied' })).toBeTruthy());
    expect(within(dialog).getByRole('status').textContent).toBe('Details copied');
    expect(writeText).toHaveBeenCalledExactlyOnceWith(
      [
        `Agentdeck ${LONG}`,
        'Commit: f3138d4a9b2c',
        'Built with: go1.26.8 for linux/amd64',
        'Running in: a browser (agentdeck serve)',
        'Data folder: /home/ada/.local/share/agentdeck',
        'Database: /home/ada/.local/share/agentdeck/agentdeck.db, 12.4 MB (13,002,342 bytes)',
        'Log: /home/ada/.local/share/agentdeck/agentdeck.log',
        '',
      ].join('\n'),
    );
  });

  it('says a copy that failed', async () => {
    Object.defineProperty(navigator, 'clipboard', {
      value: { writeText: vi.fn().mockRejectedValue(new Error('denied')) },
      configurable: true,
    });
    const { dialog } = await openAbout(backend());
    await fireEvent.click(within(dialog).getByRole('button', { name: 'Copy details' }));
    await waitFor(() => expect(within(dialog).getByRole('button', { name: 'Copy failed' })).toBeTruthy());
  });

  it('opens the links outside the app, never in the window itself', async () => {
    const b = backend();
    const { dialog } = await openAbout(b);
    const links = within(dialog).getAllByRole('link');
    expect(links.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('target'), a.getAttribute('rel')])).toEqual([
      ['Project home', 'https://github.com/agentdeck/agentdeck', '_blank', 'noopener noreferrer'],
      ['Report a problem', 'https://github.com/agentdeck/agentdeck/issues', '_blank', 'noopener noreferrer'],
    ]);
    const click = new MouseEvent('click', { bubbles: true, cancelable: true });
    links[1]!.dispatchEvent(click);
    expect(click.defaultPrevented).toBe(true);
    expect(b.calls.filter((c) => c.method === 'openURL').map((c) => c.args)).toEqual([['https://github.com/agentdeck/agentdeck/issues']]);
  });

  it('keeps Esc from reaching the window, closes, and gives focus back to the version', async () => {
    const b = backend();
    const { dialog, version } = await openAbout(b);
    const reached = vi.fn();
    window.addEventListener('keydown', reached);
    await fireEvent.keyDown(within(dialog).getByRole('button', { name: 'Copy details' }), { key: 'Escape' });
    window.removeEventListener('keydown', reached);
    expect(reached).not.toHaveBeenCalled();
    // jsdom does not close a dialog on Esc; the browser does, firing close (the e2e test presses the key).
    (dialog as HTMLDialogElement).close();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'About Agentdeck' })).toBeNull());
    expect(document.activeElement).toBe(version);
  });

  it('shows a long untagged version whole: the footer cuts it short in CSS only, the dialog wraps it', async () => {
    const b = backend(LONG);
    render(App, { backend: b });
    const version = await screen.findByTestId('version');
    await waitFor(() => expect(version.textContent).toBe(`v${LONG}`));
    expect(version.title).toBe(`Agentdeck v${LONG}`);
    expect(version.tagName).toBe('BUTTON');
    // What the ready report reads, and the smoke test compares with the binary's version.
    await waitFor(() => expect(b.uiReady).toHaveBeenCalledOnce());
    expect((b.uiReady as ReturnType<typeof vi.fn>).mock.calls[0]![0].version_shown).toBe(`v${LONG}`);
    await fireEvent.click(version);
    const dialog = await screen.findByRole('dialog', { name: 'About Agentdeck' });
    await waitFor(() => expect(within(dialog).getByTestId('about-version').textContent).toBe(LONG));
  });

  it('opens from Settings, over it', async () => {
    const b = backend();
    render(App, { backend: b });
    await fireEvent.click(await screen.findByRole('button', { name: 'Settings' }));
    const settings = await screen.findByRole('dialog', { name: 'Settings' });
    await fireEvent.click(within(settings).getByRole('button', { name: 'About Agentdeck' }));
    const about = await screen.findByRole('dialog', { name: 'About Agentdeck' });
    await fireEvent.click(within(about).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'About Agentdeck' })).toBeNull());
    expect(screen.getByRole('dialog', { name: 'Settings' })).toBeTruthy();
  });

  it('says why there is no database, and still shows the rest', async () => {
    const b = backend();
    b.about_ = {
      ...b.about_,
      db_bytes: 0,
      log_path: undefined,
      db_error: { code: 'unavailable', message: 'The database is in use by another program.' },
    };
    const { dialog } = await openAbout(b);
    expect(within(dialog).getByTestId('about-db-error').textContent).toBe(
      'The database did not open: The database is in use by another program.',
    );
    expect(within(dialog).getByTestId('about-db-size').textContent).toBe('0 B');
    expect(within(dialog).queryByTestId('about-log')).toBeNull();
  });
});

describe('aboutDetails', () => {
  it('names the desktop window, and a database error', () => {
    const b = backend();
    const text = aboutDetails(
      { ...b.about_, version: '1.2.3', db_error: { code: 'unavailable', message: 'Locked.' }, log_path: undefined },
      'wails',
    );
    expect(text).toContain('Running in: the desktop window\n');
    expect(text).toContain('Database error: Locked.\n');
    expect(text).not.toContain('Log:');
  });
});

// The icon drawn in the About box is build/appicon.svg's: the same shapes
// with the same attributes (only the gradient's id differs).
it('draws the icon as build/appicon.svg does', async () => {
  // Read with Node's fs: the file is outside what Vite serves, and the page's types know no Node (tsconfig types: []).
  const fsModule = 'node:fs';
  const { readFileSync } = (await import(/* @vite-ignore */ fsModule)) as { readFileSync(path: string, encoding: 'utf8'): string };
  // (Vitest names this module /@fs/<its path>.)
  const svg = readFileSync(new URL('../../../../build/appicon.svg', import.meta.url).pathname.replace(/^\/@fs\//, '/'), 'utf8');
  const file = new DOMParser().parseFromString(svg, 'image/svg+xml');
  const { container } = render(AppIcon);
  const shapes = (root: ParentNode) =>
    [...root.querySelectorAll('stop, rect, path')].map((el) => [
      el.tagName,
      ...[...el.attributes]
        .filter((a) => a.name !== 'fill' || !a.value.startsWith('url('))
        .map((a) => `${a.name}=${a.value}`)
        .sort(),
    ]);
  expect(shapes(file)).toHaveLength(6); // two stops, two cards, the prompt's two strokes
  expect(shapes(container)).toEqual(shapes(file));
  expect(container.querySelector('svg')!.getAttribute('viewBox')).toBe(file.documentElement.getAttribute('viewBox'));
});

describe('pathPieces', () => {
  it.each([
    ['/home/ann/.local/share/agentdeck/agentdeck.db', ['/', 'home/', 'ann/', '.local/', 'share/', 'agentdeck/', 'agentdeck.db']],
    ['C:\\Users\\Ann\\AppData\\Roaming\\agentdeck', ['C:\\', 'Users\\', 'Ann\\', 'AppData\\', 'Roaming\\', 'agentdeck']],
    ['agentdeck.db', ['agentdeck.db']],
    ['/tmp/', ['/', 'tmp/']],
    ['', []],
  ])('cuts %j after each separator, and the pieces join back', (path, want) => {
    expect(pathPieces(path)).toEqual(want);
    expect(pathPieces(path).join('')).toBe(path);
  });
});
