// The records of a client_credentials token: its grant (whose id is the token's `sid`, so it can be
// revoked) and its `token_issued` audit entry, stored only if the client's row still holds what the
// request was checked against (`ClientVersion`: enabled, the same secret hashes, grants and
// audiences). The request may have been checked against a kept copy of the client
// (client-cache.ts); this condition, in the statement that inserts the grant, is what makes a
// change to the client act at once all the same.
//
// Bookkeeping a crash may take back (see `NO_FLUSH_WAIT_SQL`): on SQLite, the two inserts share one
// grouped commit with the writes of the moment; on PostgreSQL, the tokens of the moment are stored
// by one prepared statement (arrays unnested into both inserts) whose commit does not wait for the WAL flush:
// one round trip for many tokens instead of one each.
import { CompiledQuery } from 'kysely';
import type { Db } from '../platform/db/database.ts';
import { NO_FLUSH_WAIT_SQL, bookkeepingCommit, grouped } from '../platform/db/durability.ts';
import { runPrepared, type PreparedStatement } from '../platform/db/prepared.ts';
import { sqliteHandleOf } from '../platform/db/database.ts';
import { newId } from '../platform/ids.ts';
import { Batcher } from '../platform/batcher.ts';
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

// SQLite: `is` compares nullable columns (null is null).
const SQLITE_GRANT = `insert into grants (id, client_id, kind, auth_time, created_at, chain_expires_at, audience)
select ?, id, 'client_credentials', ?, ?, ?, ? from api_clients
where id = ? and disabled = 0 and secret_hash = ? and previous_secret_hash is ? and previous_secret_expires_at is ? and grants = ? and audiences = ?`;
const SQLITE_AUDIT = `insert into audit_log (id, at, event, outcome, client_id, address, detail, organisation_id)
values (?, ?, 'token_issued', 'success', ?, ?, 'client_credentials', ?)`;

async function storeOnSqlite(db: Db, issue: ClientCredentialsIssue): Promise<boolean> {
  const { grantId, client, at, chainExpiresAt, audience, address } = issue;
  const { version } = client;
  return grouped(db, async (trx) => {
    const granted = await trx.executeQuery(CompiledQuery.raw(SQLITE_GRANT, [
      grantId, at, at, chainExpiresAt, audience,
      client.id, version.secretHash, version.previousSecretHash, version.previousSecretExpiresAt, version.grants, version.audiences,
    ]));
    if (granted.numAffectedRows !== 1n) return false;
    await trx.executeQuery(CompiledQuery.raw(SQLITE_AUDIT, [newId('aud', at), at, client.id, address, client.organisationId]));
    return true;
  });
}

// One text for any number of tokens (arrays, unnested into both inserts): a named prepared statement.
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
 * On PostgreSQL, the issues that arrive while a statement is in flight wait and go together in the
 * next (platform/batcher.ts, with no size limit: the statement takes arrays): under load each
 * statement carries many tokens, and alone a token waits for no one.
 */
function postgresBatches(db: Db): Batcher<ClientCredentialsIssue, boolean> {
  return new Batcher(async (issues) => {
    const stored = await storeOnPostgres(db, issues);
    return issues.map((issue) => ({ ok: true, value: stored.has(issue.grantId) }));
  }, Number.POSITIVE_INFINITY);
}

export class IssueRecords {
  readonly #db: Db;
  readonly #batches: Batcher<ClientCredentialsIssue, boolean> | undefined;

  constructor(db: Db) {
    this.#db = db;
    this.#batches = sqliteHandleOf(db) ? undefined : postgresBatches(db);
  }

  /** Stores the grant and its audit entry; false, storing nothing, when the client's row changed since it was read. */
  store(issue: ClientCredentialsIssue): Promise<boolean> {
    return this.#batches ? this.#batches.add(issue) : storeOnSqlite(this.#db, issue);
  }
}
