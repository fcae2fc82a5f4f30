// Grouping of sessions by when they were last active, in local time.

export type DateGroup = 'Today' | 'Yesterday' | 'Previous 7 days' | 'Older';

export const groupOrder: DateGroup[] = ['Today', 'Yesterday', 'Previous 7 days', 'Older'];

function startOfDay(d: Date): number {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate()).getTime();
}

/** The group of a timestamp relative to now (local calendar days). */
export function dateGroup(iso: string, now: Date = new Date()): DateGroup {
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return 'Older';
  const today = startOfDay(now);
  const day = startOfDay(t);
  if (day >= today) return 'Today';
  const yesterday = startOfDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 1));
  if (day >= yesterday) return 'Yesterday';
  const week = startOfDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - 7));
  if (day >= week) return 'Previous 7 days';
  return 'Older';
}

/** Groups items (kept in their order) under the non-empty groups, in group order. */
export function groupByDate<T>(
  items: readonly T[],
  at: (item: T) => string,
  now: Date = new Date(),
): Array<{ group: DateGroup; items: T[] }> {
  const buckets = new Map<DateGroup, T[]>();
  for (const item of items) {
    const g = dateGroup(at(item), now);
    const list = buckets.get(g);
    if (list) list.push(item);
    else buckets.set(g, [item]);
  }
  return groupOrder.filter((g) => buckets.has(g)).map((group) => ({ group, items: buckets.get(group)! }));
}

/** A day of the local calendar as YYYY-MM-DD (what a date input holds and the usage API takes). */
export function localDay(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

/** The span of the last n days up to now's day, both ends included: the last 7 days are today and the 6 before. */
export function lastDays(n: number, now: Date = new Date()): { since: string; until: string } {
  return { since: localDay(new Date(now.getFullYear(), now.getMonth(), now.getDate() - (n - 1))), until: localDay(now) };
}
