// The worker thread behind inLargeTransaction (database.ts) on SQLite: a connection of its own to the
// database file that runs the statements it is sent, one message each, and answers rows or changes.
// Its commit — which writes the whole transaction into the log, and checkpoints past 1,000 pages —
// runs here, off the event loop.
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import { parentPort, workerData } from 'node:worker_threads';
import { toSqliteValue } from './sqlite-dialect.ts';

export interface WriterRequest {
  id: number;
  sql: string;
  parameters: readonly unknown[];
}

export type WriterAnswer =
  | { id: number; rows: unknown[] }
  | { id: number; changes: number | bigint; lastInsertRowid: number | bigint }
  | { id: number; error: { message: string; code?: string; errcode?: number; errstr?: string } };

const STATEMENT_CACHE_SIZE = 100;

const db = new DatabaseSync((workerData as { path: string }).path);
db.exec('PRAGMA synchronous = NORMAL');
db.exec('PRAGMA foreign_keys = ON');
db.exec('PRAGMA busy_timeout = 5000');
const statements = new Map<string, StatementSync>();

function prepared(sql: string): StatementSync {
  let statement = statements.get(sql);
  if (statement === undefined) {
    if (statements.size >= STATEMENT_CACHE_SIZE) statements.clear();
    statement = db.prepare(sql);
    statements.set(sql, statement);
  }
  return statement;
}

function run({ id, sql, parameters }: WriterRequest): WriterAnswer {
  try {
    const statement = prepared(sql);
    const values = parameters.map(toSqliteValue);
    if (statement.columns().length > 0) return { id, rows: statement.all(...values) };
    const { changes, lastInsertRowid } = statement.run(...values);
    return { id, changes, lastInsertRowid };
  } catch (error) {
    const { message, code, errcode, errstr } = error as Error & { code?: string; errcode?: number; errstr?: string };
    return { id, error: { message, code, errcode, errstr } };
  }
}

parentPort?.on('message', (request: WriterRequest | 'close') => {
  if (request === 'close') {
    db.close();
    parentPort?.close();
    return;
  }
  parentPort?.postMessage(run(request));
});
