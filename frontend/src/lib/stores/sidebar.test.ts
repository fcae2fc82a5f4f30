// The sidebar's folded state: the person's choice is kept (prefs), a
// narrow window folds it without changing that choice, and showing it
// during a narrow spell holds until the spell ends.
import { describe, expect, it } from 'vitest';
import type { Prefs } from '../prefs';
import { SidebarState } from './sidebar.svelte';

function memoryPrefs(init: Record<string, boolean> = {}): Prefs & { kept: Record<string, boolean> } {
  const kept = { ...init };
  return { kept, flag: (n, f) => kept[n] ?? f, setFlag: (n, on) => (kept[n] = on) };
}

describe('SidebarState', () => {
  it('starts from the kept choice, shown when there is none', () => {
    expect(new SidebarState(memoryPrefs()).collapsed).toBe(false);
    expect(new SidebarState(memoryPrefs({ sidebarCollapsed: true })).collapsed).toBe(true);
  });

  it('keeps what the person chose, for the next load', () => {
    const prefs = memoryPrefs();
    const s = new SidebarState(prefs);
    s.toggle();
    expect(s.collapsed).toBe(true);
    expect(prefs.kept.sidebarCollapsed).toBe(true);
    expect(new SidebarState(prefs).collapsed).toBe(true);
    s.toggle();
    expect(prefs.kept.sidebarCollapsed).toBe(false);
  });

  it.each([
    { name: 'a narrow spell folds it and its end shows it again', steps: ['auto', 'wide'], want: [true, false], kept: undefined },
    {
      name: 'shown during a spell stays shown until it ends',
      steps: ['auto', 'toggle', 'auto', 'wide', 'auto'],
      want: [true, false, false, false, true],
      kept: false,
    },
    {
      name: 'folded again during a spell, the kept choice stays shown',
      steps: ['auto', 'toggle', 'toggle', 'wide'],
      want: [true, false, true, false],
      kept: false,
    },
    { name: 'folded by the person, a spell changes nothing', steps: ['toggle', 'auto', 'wide'], want: [true, true, true], kept: true },
  ])('$name', ({ steps, want, kept }) => {
    const prefs = memoryPrefs();
    const s = new SidebarState(prefs);
    const got = steps.map((step) => {
      if (step === 'auto') s.setAuto(true);
      else if (step === 'wide') s.setAuto(false);
      else s.toggle();
      return s.collapsed;
    });
    expect(got).toEqual(want);
    expect(prefs.kept.sidebarCollapsed).toBe(kept);
  });
});
