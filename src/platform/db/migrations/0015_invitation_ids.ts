// Console invitations get an id. Their key is the hash of the token in their URL, so two made in the
// same millisecond tied on created_at and the pending list showed them in any order. Ids from
// src/platform/ids.ts strictly increase within a process, so the list orders by created_at, then id,
// newest first, as every other list of the service does (docs/console.md). The rows already there
// get ids in created_at order (the order of a tie among them is lost: any is kept). The column is
// nullable on both databases (SQLite adds no NOT NULL column without a default); the service always
// writes it, and the unique index keeps ids unique. On PostgreSQL it compares byte by byte (collation
// "C", SQLite's order): ids mix cases with `-` and `_`, which a language collation (en_US) orders
// otherwise than they were made.
import { PostgresAdapter, sql, type Kysely } from 'kysely';
import { newId } from '../../ids.ts';

type Invitations = { console_invitations: { token_hash: string; created_at: number; id: string | null } };

export async function up(db: Kysely<unknown>): Promise<void> {
  const byteOrdered = db.getExecutor().adapter instanceof PostgresAdapter;
  await db.schema.alterTable('console_invitations').addColumn('id', byteOrdered ? sql`text collate "C"` : 'text').execute();
  const invitations = db as Kysely<Invitations>;
  const rows = await invitations.selectFrom('console_invitations').select(['token_hash', 'created_at']).orderBy('created_at').orderBy('token_hash').execute();
  for (const row of rows) {
    await invitations.updateTable('console_invitations').set({ id: newId('inv', Number(row.created_at)) }).where('token_hash', '=', row.token_hash).execute();
  }
  await db.schema.createIndex('console_invitations_id').unique().on('console_invitations').column('id').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropIndex('console_invitations_id').execute();
  await db.schema.alterTable('console_invitations').dropColumn('id').execute();
}
