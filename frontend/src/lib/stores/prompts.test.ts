// The prompt library's store and the palette's state: what the palette
// lists and how it follows the message, and the library's round trip
// through the (fake) backend: save, a name taken in its scope, export,
// import with a report, and a broken file that writes nothing.
import { describe, expect, it } from 'vitest';
import { FakeBackend } from '../fake';
import type { Prompt } from '../types';
import { newPrompt, PaletteState, PromptLibrary } from './prompts.svelte';

const prompt = (name: string, over: Partial<Prompt> = {}): Prompt => ({ ...newPrompt(), id: name, name, body: name, ...over });

describe('PaletteState', () => {
  it('opens on a one-line message that starts with "/", and filters by what follows', () => {
    const p = new PaletteState();
    p.prompts = [prompt('Summarize', { description: 'short' }), prompt('Review'), prompt('Greeting', { description: 'say hi' })];
    expect(p.follow('hello')).toBe(false);
    expect(p.open).toBe(false);
    expect(p.follow('/')).toBe(true);
    expect(p.items.map((i) => i.label)).toEqual([
      'Summarize',
      'Review',
      'Greeting',
      'New session',
      'Switch model…',
      'Switch workflow…',
      'Attach file…',
    ]);
    expect(p.follow('/re')).toBe(false); // still open, not newly
    // A name that starts with the filter comes first; a prompt's description matches too.
    expect(p.items.map((i) => i.label)).toEqual(['Review', 'Greeting']);
    p.follow('/hi');
    expect(p.items.map((i) => i.label)).toEqual(['Greeting']);
    p.follow('/a\nb');
    expect(p.open).toBe(false);
  });

  it('moves the active entry with wrapping, back to the first as the filter changes', () => {
    const p = new PaletteState();
    p.prompts = [prompt('A'), prompt('B')];
    p.follow('/');
    p.move(-1);
    expect(p.current?.label).toBe('Attach file…');
    p.move(1);
    p.move(1);
    expect(p.current?.label).toBe('B');
    p.follow('/b');
    expect(p.active).toBe(0);
  });

  it('stays closed after Escape until the "/" goes', () => {
    const p = new PaletteState();
    p.follow('/x');
    p.close(true);
    expect(p.follow('/xy')).toBe(false);
    expect(p.open).toBe(false);
    p.follow('');
    expect(p.follow('/')).toBe(true);
    // Closed without dismissing (the box lost focus): the next keystroke opens it again.
    p.close();
    expect(p.follow('/z')).toBe(true);
  });
});

describe('PromptLibrary', () => {
  it('saves, refuses a name its scope has, exports and imports through the backend', async () => {
    const b = new FakeBackend();
    const work = await b.createProject({ id: '', name: 'Work', created_at: '', updated_at: '', settings: {}, sessions: 0 });
    const lib = new PromptLibrary(b);
    await lib.load();
    expect(lib.prompts).toEqual([]);
    expect(lib.projects.map((p) => p.name)).toEqual(['Work']);

    const saved = await lib.save({ ...newPrompt(), name: 'Summarize', body: 'Sum up {{text}}.\nShort.\n' });
    expect(saved.variables).toEqual(['text']);
    await lib.save({ ...newPrompt(work.id), name: 'summarize', body: 'Work version' });
    await expect(lib.save({ ...newPrompt(), name: 'SUMMARIZE', body: 'x' })).rejects.toThrow(
      'already a prompt named "SUMMARIZE" among the global prompts',
    );
    expect(lib.prompts.map((p) => [p.name, lib.scopeName(p.project_id)])).toEqual([
      ['Summarize', 'Global'],
      ['summarize', 'Work'],
    ]);

    const file = await lib.exportFile();
    expect(file.filename).toBe('agentdeck-prompts.yaml');

    // Into another library, which has the project too.
    const b2 = new FakeBackend();
    await b2.createProject({ id: '', name: 'work', created_at: '', updated_at: '', settings: {}, sessions: 0 });
    const other = new PromptLibrary(b2);
    await expect(other.importFile('version: 1\nprompts:\n  - name: Broken\n')).rejects.toThrow('nothing was written');
    expect(b2.library.prompts).toEqual([]);
    const rep = await other.importFile(file.content);
    expect(rep.created?.map((c) => c.name)).toEqual(['Summarize', 'summarize']);
    expect(other.prompts.map((p) => p.body)).toEqual(['Sum up {{text}}.\nShort.\n', 'Work version']);
    const again = await other.importFile(file.content);
    expect(again.skipped?.length).toBe(2);

    await lib.remove(saved.id);
    expect(lib.prompts.map((p) => p.name)).toEqual(['summarize']);
  });
});
