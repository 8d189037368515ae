// Named prepared statements on PostgreSQL: parsed once per pooled connection, then only bound and
// run. Parsing and planning a statement anew cost the database backend more CPU than a small insert
// itself (docs/benchmarks.md, write paths); hot statements of fixed text use this instead of Kysely's
// unnamed ones. The text must not vary: one name, one text (node-postgres refuses a reused name).
import { pgPoolOf, type Db } from './database.ts';

export interface PreparedStatement {
  /** Unique per text. */
  name: string;
  text: string;
}

export async function runPrepared<Row extends object>(db: Db, statement: PreparedStatement, values: readonly unknown[]): Promise<Row[]> {
  const pool = pgPoolOf(db);
  if (!pool) throw new Error(`runPrepared(${statement.name}): PostgreSQL only`);
  const result = await pool.query<Row>({ name: statement.name, text: statement.text, values: [...values] });
  return result.rows;
}
