// Hot statements built with Kysely once per dialect, then bound to fresh values on every run.
// Building and compiling a query cost more CPU than SQLite took to run it: on a timeclock event,
// Kysely's query building took about as long as SQLite's work (docs/benchmarks.md, write paths).
//
// The first run builds the query from placeholder rows (one marker string per field of each row),
// compiles it, and records which parameter each field became; later runs copy the compiled text and
// put the fields' values in those places. A field that did not become exactly one parameter (a
// builder that inlines or repeats it) is refused at the first run, so a wrong binding cannot happen
// silently.
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { Database } from './schema.ts';

type Connection = Kysely<Database>;

interface Template {
  sql: string;
  parameters: readonly unknown[];
  /** For each parameter that carries a field: its position, the row and the field. */
  slots: ReadonlyArray<readonly [number, number, string]>;
}

function marker(row: number, field: string): string {
  return `\u0000compiled-once:${row}:${field}\u0000`;
}

function compileTemplate<V extends object>(connection: Connection, build: (connection: Connection, rows: V[]) => Compilable, rows: readonly V[]): Template {
  const fields = rows.flatMap((row, index) => Object.keys(row).map((field) => [index, field] as const));
  const byMarker = new Map(fields.map(([index, field]) => [marker(index, field), [index, field] as const]));
  const placeholders = rows.map((row, index) => Object.fromEntries(Object.keys(row).map((field) => [field, marker(index, field)])) as V);
  const compiled = build(connection, placeholders).compile();
  const slots: Array<readonly [number, number, string]> = [];
  compiled.parameters.forEach((parameter, position) => {
    const field = typeof parameter === 'string' ? byMarker.get(parameter) : undefined;
    if (field) slots.push([position, ...field]);
  });
  if (slots.length !== fields.length || new Set(slots.map(([, row, field]) => marker(row, field))).size !== fields.length || compiled.sql.includes('\u0000')) {
    throw new Error('compiledOnce: every field must reach the query as exactly one bound parameter');
  }
  return { sql: compiled.sql, parameters: compiled.parameters, slots };
}

/**
 * `build` as a statement over `rows.length` rows compiled once per dialect and row count: returns a
 * function giving the statement for `rows` (its `compile()` answers the already compiled query). Every row must have the same fields, and
 * `build` must use each as a value (never branch on it): it only ever sees placeholders.
 */
export function compiledRows<V extends object, Row>(build: (connection: Connection, rows: V[]) => Compilable<Row>): (connection: Connection, rows: readonly V[]) => Compilable<Row> {
  // Per dialect (a transaction shares its database's adapter), then per row count.
  const templates = new WeakMap<object, Map<number, Template>>();
  return (connection, rows) => {
    const adapter = connection.getExecutor().adapter;
    let sizes = templates.get(adapter);
    if (!sizes) templates.set(adapter, (sizes = new Map<number, Template>()));
    let template = sizes.get(rows.length);
    if (!template) sizes.set(rows.length, (template = compileTemplate(connection, build, rows)));
    const parameters = [...template.parameters];
    for (const [position, row, field] of template.slots) parameters[position] = (rows[row] as Record<string, unknown>)[field];
    const compiled: CompiledQuery<Row> = CompiledQuery.raw(template.sql, parameters);
    return { compile: () => compiled };
  };
}

/** `compiledRows` for a statement over one set of values. */
export function compiledOnce<V extends object, Row>(build: (connection: Connection, values: V) => Compilable<Row>): (connection: Connection, values: V) => Compilable<Row> {
  const compiled = compiledRows((connection, rows: V[]) => build(connection, rows[0] as V));
  return (connection, values) => compiled(connection, [values]);
}
