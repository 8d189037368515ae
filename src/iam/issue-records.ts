// The records of a client_credentials token: its grant (whose id is the token's `sid`, so it can be
// revoked) and its `token_issued` audit entry, stored only if the client's row still holds what the
// request was checked against (`ClientVersion`: enabled, the same secret hashes, grants and
// audiences). The request may have been checked against a kept copy of the client
// (client-cache.ts); this condition, in the statement that inserts the grant, is what makes a
// change to the client act at once all the same.
//
// Bookkeeping a crash may take back (see `NO_FLUSH_WAIT_SQL`), stored for the tokens of the moment
// together: on SQLite, one multi-row insert of the grants and one of their audit entries in one
// transaction (not synced, as `grouped()` writes are not); on PostgreSQL, one prepared statement (arrays unnested into both
// inserts) whose commit does not wait for the WAL flush: one round trip for many tokens.
import { CompiledQuery } from 'kysely';
import type { Db } from '../platform/db/database.ts';
import { NO_FLUSH_WAIT_SQL, bookkeepingCommit } from '../platform/db/durability.ts';
import { runPrepared, type PreparedStatement } from '../platform/db/prepared.ts';
import { sqliteHandleOf } from '../platform/db/database.ts';
import { newId } from '../platform/ids.ts';
import { Batcher } from '../platform/batcher.ts';
import { powerOfTwoRuns } from '../platform/db/row-runs.ts';
import type { OAuthClient } from './clients.ts';

export interface ClientCredentialsIssue {
  grantId: string;
  /** The client as checked: its `version` is the condition of the insert. */
  client: OAuthClient;
  at: number;
  chainExpiresAt: number;
  audience: string;
  address: string;
}

// SQLite: the tokens of the moment in a few statements, each with the rows of a power of two (at most
// 64): a handful of texts for the statement cache, whatever the group's size. The grant is selected
// from a VALUES list joined to the client's row; `is` compares nullable columns (null is null).
const SQLITE_ROWS_PER_STATEMENT = 64;
const SQLITE_GRANT_ROW = '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)';
const SQLITE_AUDIT_ROW = "(?, ?, 'token_issued', 'success', ?, ?, 'client_credentials', ?)";

const sqliteGrants = (rows: number) => `insert into grants (id, client_id, kind, auth_time, created_at, chain_expires_at, audience)
select r.column1, c.id, 'client_credentials', r.column2, r.column2, r.column3, r.column4
from (values ${Array(rows).fill(SQLITE_GRANT_ROW).join(', ')}) r join api_clients c on c.id = r.column5
where c.disabled = 0 and c.secret_hash = r.column6 and c.previous_secret_hash is r.column7
  and c.previous_secret_expires_at is r.column8 and c.grants = r.column9 and c.audiences = r.column10
returning id`;
const sqliteAudits = (rows: number) => `insert into audit_log (id, at, event, outcome, client_id, address, detail, organisation_id)
values ${Array(rows).fill(SQLITE_AUDIT_ROW).join(', ')}`;

/** Stores `issues` in the caller's transaction; returns the grants stored. */
async function storeOnSqlite(trx: Db, issues: readonly ClientCredentialsIssue[]): Promise<Set<string>> {
  const stored = new Set<string>();
  for (const run of powerOfTwoRuns(issues, SQLITE_ROWS_PER_STATEMENT)) {
    const values = run.flatMap(({ grantId, client: { id, version }, at, chainExpiresAt, audience }) => [
      grantId, at, chainExpiresAt, audience, id,
      version.secretHash, version.previousSecretHash, version.previousSecretExpiresAt, version.grants, version.audiences,
    ]);
    const { rows } = await trx.executeQuery<{ id: string }>(CompiledQuery.raw(sqliteGrants(run.length), values));
    for (const { id } of rows) stored.add(id);
  }
  const granted = issues.filter((issue) => stored.has(issue.grantId));
  for (const run of powerOfTwoRuns(granted, SQLITE_ROWS_PER_STATEMENT)) {
    const values = run.flatMap(({ client, at, address }) => [newId('aud', at), at, client.id, address, client.organisationId]);
    await trx.executeQuery(CompiledQuery.raw(sqliteAudits(run.length), values));
  }
  return stored;
}

// One text for any number of tokens (arrays, unnested into both inserts): a named prepared statement.
// `for share of c`: the client's row is read locked. Without it a disable or an immediate rotation
// committing while this statement runs revokes the grants it can see, not the one inserted here from
// the row as it was (READ COMMITTED), and that token lived on until it expired. Now the change waits
// for this commit and then revokes the grant too, or commits first and this row is checked again
// against it (and not stored). SQLite has one writer at a time: no such interleaving.
const POSTGRES_ISSUES: PreparedStatement = {
  name: 'iam_client_credentials_issues',
  text: `with request as (
  select * from unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::text[], $8::text[],
                       $9::text[], $10::text[], $11::bigint[], $12::text[], $13::text[])
    as r(grant_id, audit_id, client_id, at, chain_expires_at, audience, address, organisation_id,
         secret_hash, previous_secret_hash, previous_secret_expires_at, grants, audiences)
), issued as (
  insert into grants (id, client_id, kind, auth_time, created_at, chain_expires_at, audience)
  select r.grant_id, r.client_id, 'client_credentials', r.at, r.at, r.chain_expires_at, r.audience
  from request r join api_clients c on c.id = r.client_id
  where c.disabled = 0 and c.secret_hash = r.secret_hash
    and c.previous_secret_hash is not distinct from r.previous_secret_hash
    and c.previous_secret_expires_at is not distinct from r.previous_secret_expires_at
    and c.grants = r.grants and c.audiences = r.audiences
  for share of c
  returning id
), audited as (
  insert into audit_log (id, at, event, outcome, client_id, address, detail, organisation_id)
  select r.audit_id, r.at, 'token_issued', 'success', r.client_id, r.address, 'client_credentials', r.organisation_id
  from request r join issued i on i.id = r.grant_id
)
select coalesce((select array_agg(id) from issued), '{}') as issued, ${NO_FLUSH_WAIT_SQL} as synchronous_commit`,
};

/** The grants of `issues` that PostgreSQL stored, in one statement. */
async function storeOnPostgres(db: Db, issues: readonly ClientCredentialsIssue[]): Promise<Set<string>> {
  const column = <T>(pick: (issue: ClientCredentialsIssue) => T) => issues.map(pick);
  const values = [
    column((i) => i.grantId), column((i) => newId('aud', i.at)), column((i) => i.client.id),
    column((i) => i.at), column((i) => i.chainExpiresAt), column((i) => i.audience),
    column((i) => i.address), column((i) => i.client.organisationId),
    column((i) => i.client.version.secretHash), column((i) => i.client.version.previousSecretHash),
    column((i) => i.client.version.previousSecretExpiresAt), column((i) => i.client.version.grants),
    column((i) => i.client.version.audiences),
  ];
  const rows = await bookkeepingCommit(db, issues.length * 2, () => runPrepared<{ issued: string[] }>(db, POSTGRES_ISSUES, values));
  return new Set(rows[0]?.issued ?? []);
}

/**
 * The issues that arrive while a group is being stored wait and go together in the next
 * (platform/batcher.ts, with no size limit): under load each group carries many tokens, and alone a
 * token waits for no one. On SQLite a group is one transaction of its own — already the grouped
 * commit of the moment's tokens, so not a write of `grouped()`, whose second wait for the end of a
 * turn and per-write savepoint would add nothing — and on PostgreSQL one statement. Either way a
 * group is all or nothing: should one row fail (no constraint a token's rows could break is known),
 * nothing of the group is stored and every token of it fails.
 */
function storeGroup(db: Db): (issues: readonly ClientCredentialsIssue[]) => Promise<Set<string>> {
  if (!sqliteHandleOf(db)) return (issues) => storeOnPostgres(db, issues);
  return (issues) => bookkeepingCommit(db, issues.length * 2, () => db.transaction().execute((trx) => storeOnSqlite(trx, issues)));
}

export class IssueRecords {
  readonly #batches: Batcher<ClientCredentialsIssue, boolean>;

  constructor(db: Db) {
    const store = storeGroup(db);
    this.#batches = new Batcher(async (issues) => {
      const stored = await store(issues);
      return issues.map((issue) => ({ ok: true, value: stored.has(issue.grantId) }));
    }, Number.POSITIVE_INFINITY);
  }

  /** Stores the grant and its audit entry; false, storing nothing, when the client's row changed since it was read. */
  store(issue: ClientCredentialsIssue): Promise<boolean> {
    return this.#batches.add(issue);
  }
}
