import { describe, expect, it } from 'vitest';
import { dateGroup, groupByDate, lastDays, localDay } from './dates';

// Local time, so the test holds in any time zone.
const now = new Date(2025, 5, 18, 9, 30); // Wed 18 June 2025, 09:30
const local = (d: number, h = 12, m = 0) => new Date(2025, 5, d, h, m).toISOString();

describe('dateGroup', () => {
  it.each([
    ['earlier today', local(18, 0, 1), 'Today'],
    ['later today (clock skew)', local(18, 23), 'Today'],
    ['just before midnight yesterday', local(17, 23, 59), 'Yesterday'],
    ['start of yesterday', local(17, 0, 0), 'Yesterday'],
    ['two days ago', local(16), 'Previous 7 days'],
    ['seven days ago', local(11, 0, 0), 'Previous 7 days'],
    ['eight days ago', local(10, 23), 'Older'],
    ['last year', new Date(2024, 0, 1).toISOString(), 'Older'],
    ['not a date', 'garbage', 'Older'],
  ])('%s', (_name, iso, want) => {
    expect(dateGroup(iso, now)).toBe(want);
  });

  it('follows the calendar across a month boundary', () => {
    const first = new Date(2025, 6, 1, 8);
    expect(dateGroup(new Date(2025, 5, 30, 22).toISOString(), first)).toBe('Yesterday');
    expect(dateGroup(new Date(2025, 5, 25, 12).toISOString(), first)).toBe('Previous 7 days');
  });
});

describe('groupByDate', () => {
  it('groups in order, skips empty groups and keeps item order', () => {
    const items = [
      { id: 'a', at: local(18, 9) },
      { id: 'b', at: local(18, 8) },
      { id: 'c', at: local(1) },
      { id: 'd', at: local(17) },
    ];
    expect(groupByDate(items, (x) => x.at, now).map((g) => [g.group, g.items.map((x) => x.id)])).toEqual([
      ['Today', ['a', 'b']],
      ['Yesterday', ['d']],
      ['Older', ['c']],
    ]);
  });
});

describe('localDay and lastDays', () => {
  it('write the local calendar day, and a span that ends today with both ends counted', () => {
    const now = new Date(2025, 0, 3, 23, 59);
    expect(localDay(now)).toBe('2025-01-03');
    expect(lastDays(1, now)).toEqual({ since: '2025-01-03', until: '2025-01-03' });
    expect(lastDays(7, now)).toEqual({ since: '2024-12-28', until: '2025-01-03' });
    expect(lastDays(30, new Date(2025, 2, 1))).toEqual({ since: '2025-01-31', until: '2025-03-01' });
  });
});
