// PostgreSQL array literals (`{"a","b",NULL}`) written here rather than by node-postgres, for the
// set-based statements that send a whole batch as one array per column (`unnest($1::text[], …)`).
// node-postgres escapes every element with two regex replacements and concatenates the result
// piece by piece: for a 5,000-item batch that was ~0.8 µs an element, the largest share of the
// service's CPU in the statement. The text is the same array input syntax PostgreSQL parses either way.

const NEEDS_ESCAPE = /["\\]/;
const ESCAPED = /["\\]/g;

/** One element of a text array literal: double-quoted (so commas, braces, spaces and the word NULL stay text) with `"` and `\` escaped; null as NULL. */
export function textElement(value: string | null): string {
  if (value === null) return 'NULL';
  return NEEDS_ESCAPE.test(value) ? `"${value.replace(ESCAPED, '\\$&')}"` : `"${value}"`;
}

/** Elements (textElement) as an array literal: for elements written ahead, while the database was busy with something else. */
export function arrayOfElements(elements: readonly string[]): string {
  return `{${elements.join(',')}}`;
}

/** Text values as an array literal (textElement). Cast it: `${literal}::text[]`. */
export function textArray(values: ReadonlyArray<string | null>): string {
  return arrayOfElements(values.map(textElement));
}

/** Integers (safe integers: minor units, epoch milliseconds) as an array literal; null as NULL. Cast it: `::bigint[]`. */
export function integerArray(values: ReadonlyArray<number | null>): string {
  return `{${values.map((value) => (value === null ? 'NULL' : String(value))).join(',')}}`;
}
