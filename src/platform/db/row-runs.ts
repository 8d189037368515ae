// Multi-row statements over a group of any size, cut into runs whose row counts are powers of two:
// a handful of statement texts for the statement cache (and of compiled templates), whatever the
// sizes of the groups (a group of 45 is 32 + 8 + 4 + 1 rows).

/** `items` in runs of a power of two, largest first, none over `max` (itself a power of two). */
export function powerOfTwoRuns<T>(items: readonly T[], max: number): T[][] {
  const runs: T[][] = [];
  for (let at = 0; at < items.length;) {
    let size = max;
    while (size > items.length - at) size /= 2;
    runs.push(items.slice(at, at + size));
    at += size;
  }
  return runs;
}
