// Which of two versions of a message is compared with which in the "What
// changed" view: a re-run against the turn it was re-run from, otherwise
// the older version against the newer.

/** [turnA, turnB] for two versions; versions lists them oldest first, fromOf names the turn one was re-run from. */
export function diffPair(
  one: string,
  other: string,
  versions: readonly string[],
  fromOf: (id: string) => string | undefined,
): [string, string] {
  if (fromOf(one) === other) return [other, one];
  if (fromOf(other) === one) return [one, other];
  return versions.indexOf(one) <= versions.indexOf(other) ? [one, other] : [other, one];
}
