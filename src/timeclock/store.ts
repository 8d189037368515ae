// Where the timeclock's rules (record.ts) read and write: a person with their latest event, an event
// stored under an eventId, and the append of an event with its change-log entry.
//
// SQLite answers in-process, so each look-up is one compiled statement. On PostgreSQL a statement's
// fixed cost — a round trip, parse and plan, and for a write the commit's WAL flush — is most of a
// small write's cost, and the database's CPU bounds the event rate. So concurrent look-ups go to the
// database as one prepared statement. On both, concurrent appends are stored together (a statement's
// and a commit's fixed costs are most of a small write's on SQLite too): on PostgreSQL one statement
// (and one flush), on SQLite one synced transaction of a few multi-row inserts, each event's outcome
// its own. An append whose (person, sequence) or (organisation, eventId) is
// taken is skipped (`on conflict do nothing`), not an error, so a lost race fails no neighbour.
import type { SQLInputValue } from 'node:sqlite';
import { CompiledQuery } from 'kysely';
import type { Db } from '../platform/db/database.ts';
import { sqliteHandleOf } from '../platform/db/database.ts';
import { conflict, notFound } from '../platform/errors.ts';
import { durableStatement, durably } from '../platform/db/durability.ts';
import { compiledOnce } from '../platform/db/compiled-once.ts';
import { powerOfTwoRuns } from '../platform/db/row-runs.ts';
import { runPrepared, type PreparedStatement } from '../platform/db/prepared.ts';
import { Batcher, type Outcome } from '../platform/batcher.ts';
import { insertAllWithChanges, recordCompanyChanges, type CompanyChange } from '../changes/change-log.ts';
import type { TimeclockEvent, TimeclockEventInput } from './events.ts';
import type { PresenceState, TimeclockEventsTable } from './tables.ts';

/** A person and where they stand: their latest event's sequence, time and state (0, null, off before any). */
export interface Person {
  id: string;
  companyId: string;
  timezone: string;
  lastSequence: number;
  lastOccurredAt: number | null;
  state: PresenceState;
}

/** Look-ups or appends sent to PostgreSQL in one statement at most (a statement of a few hundred kB). */
const MAX_GROUP = 256;

export async function findStoredEvent(db: Db, organisationId: string, eventId: string) {
  return db
    .selectFrom('timeclock_events as e')
    // The company's time zone in the same statement (docs/architecture.md, "Joins of companies").
    .innerJoin('companies as c', 'c.id', 'e.company_id')
    .selectAll('e')
    .select('c.timezone')
    .where('e.organisation_id', '=', organisationId)
    .where('e.event_id', '=', eventId)
    .executeTakeFirst();
}

interface PersonRow {
  id: string;
  company_id: string;
  timeclock_active: number;
  timezone: string;
  last_sequence: number | null;
  last_occurred_at: number | string | null;
  last_state: PresenceState | null;
}

/** SQLite: the person by badge or by id within the organisation, with their latest event's fields. */
function personQuery(key: 'p.badge_id' | 'p.id') {
  return compiledOnce((db: Db, values: { organisationId: string; key: string }) =>
    db
      .selectFrom('employees as p')
      // The company's time zone in the same statement as the person (docs/architecture.md, "Joins of companies").
      .innerJoin('companies as c', 'c.id', 'p.company_id')
      .select(['p.id', 'p.company_id', 'p.timeclock_active', 'c.timezone'])
      // The latest event's fields, each a backward probe of the unique (person, sequence) index that
      // stops at the first entry; a plain join on max(sequence) can be planned as a scan of all events.
      .select((eb) => {
        const latest = () => eb.selectFrom('timeclock_events as e').whereRef('e.employee_id', '=', 'p.id').orderBy('e.sequence', 'desc').limit(1);
        return [
          latest().select('e.sequence').as('last_sequence'),
          latest().select('e.occurred_at').as('last_occurred_at'),
          latest().select('e.state_after').as('last_state'),
        ];
      })
      .where('p.organisation_id', '=', values.organisationId)
      .where(key, '=', values.key),
  );
}
const personByBadge = personQuery('p.badge_id');
const personById = personQuery('p.id');

interface Lookup {
  organisationId: string;
  input: TimeclockEventInput;
}

/**
 * PostgreSQL: the people of many look-ups (`n` = 1-based position in the arrays), by id or by badge.
 * The company's time zone in the same statement (docs/architecture.md, "Joins of companies").
 */
const PEOPLE: PreparedStatement = {
  name: 'timeclock_people',
  text: `select k.n, p.id, p.company_id, p.timeclock_active, c.timezone,
      l.sequence as last_sequence, l.occurred_at as last_occurred_at, l.state_after as last_state
    from unnest($1::text[], $2::text[], $3::text[]) with ordinality as k(organisation_id, user_id, badge_id, n)
    cross join lateral (
      select e.id, e.company_id, e.timeclock_active from employees e where e.id = k.user_id and e.organisation_id = k.organisation_id
      union all
      select e.id, e.company_id, e.timeclock_active from employees e where e.organisation_id = k.organisation_id and e.badge_id = k.badge_id
    ) p
    join companies c on c.id = p.company_id
    left join lateral (
      select t.sequence, t.occurred_at, t.state_after from timeclock_events t where t.employee_id = p.id order by t.sequence desc limit 1
    ) l on true`,
};

async function lookUpPeople(db: Db, lookups: readonly Lookup[]): Promise<Array<Outcome<PersonRow | undefined>>> {
  const rows = await runPrepared<PersonRow & { n: number | string }>(db, PEOPLE, [
    lookups.map((lookup) => lookup.organisationId),
    lookups.map((lookup) => lookup.input.userId ?? null),
    lookups.map((lookup) => lookup.input.badgeId ?? null),
  ]);
  const byPosition = new Map(rows.map((row) => [Number(row.n), row]));
  return lookups.map((_, i) => ({ ok: true, value: byPosition.get(i + 1) }));
}

const lookupBatchers = new WeakMap<Db, Batcher<Lookup, PersonRow | undefined>>();

async function personRow(db: Db, organisationId: string, input: TimeclockEventInput): Promise<PersonRow | undefined> {
  const sqlite = sqliteHandleOf(db);
  if (sqlite) {
    const query = input.badgeId != null ? personByBadge(db, { organisationId, key: input.badgeId }) : personById(db, { organisationId, key: input.userId ?? '' });
    // Read synchronously from committed data (readCommittedRow), without Kysely's executor and the
    // connection's mutex: every accepted event is committed before its 200, and a read that misses
    // an append still in flight only loses the race for its sequence (record.ts starts over).
    const { sql, parameters } = query.compile();
    return sqlite.readCommittedRow(sql, parameters as SQLInputValue[]) as PersonRow | undefined;
  }
  let batcher = lookupBatchers.get(db);
  if (!batcher) lookupBatchers.set(db, (batcher = new Batcher((lookups) => lookUpPeople(db, lookups), MAX_GROUP)));
  return batcher.add({ organisationId, input });
}

/** The person the event names (badge or user, in the organisation, in `companyId` when given), with where they stand. */
export async function findPerson(db: Db, organisationId: string, input: TimeclockEventInput): Promise<Person> {
  const row = await personRow(db, organisationId, input);
  const who = input.badgeId != null ? `badge ${input.badgeId}` : `user ${input.userId}`;
  if (!row || (input.companyId != null && row.company_id !== input.companyId)) {
    throw notFound(input.companyId != null ? `No ${who} in company ${input.companyId}.` : `No ${who} in this organisation.`);
  }
  if (row.timeclock_active !== 1) throw conflict('timeclock_inactive', `The timeclock of ${who} is not active.`);
  return {
    id: row.id,
    companyId: row.company_id,
    timezone: row.timezone,
    lastSequence: row.last_sequence ?? 0,
    lastOccurredAt: row.last_occurred_at === null ? null : Number(row.last_occurred_at),
    state: row.last_state ?? 'off',
  };
}

/** An event to store, as it will be answered, and its person's time zone (for the change's time). */
export interface Append {
  event: TimeclockEventsTable;
  stored: TimeclockEvent;
  timezone: string;
}

function changeOf({ event, stored, timezone }: Append): CompanyChange {
  return {
    companyId: event.company_id,
    change: { resourceType: 'timeclock_event', action: 'created', resourceId: event.id, data: stored },
    time: { at: event.received_at, timezone },
  };
}

/** The columns of timeclock_events with their PostgreSQL types, in the order the group insert binds them. */
const COLUMNS: ReadonlyArray<readonly [keyof TimeclockEventsTable, string]> = [
  ['id', 'text'], ['organisation_id', 'text'], ['company_id', 'text'], ['employee_id', 'text'], ['event_id', 'text'],
  ['content_hash', 'text'], ['sequence', 'integer'], ['type', 'text'], ['occurred_at', 'bigint'], ['received_at', 'bigint'],
  ['source', 'text'], ['badge_id', 'text'], ['device_id', 'text'], ['location', 'text'], ['anomaly', 'text'], ['state_after', 'text'],
];

/** PostgreSQL: a group of events, one array per column; a row whose unique key is taken is skipped. */
const EVENTS_INSERT: PreparedStatement = {
  name: 'timeclock_events_insert',
  text: `insert into timeclock_events (${COLUMNS.map(([column]) => column).join(', ')})
    select ${COLUMNS.map(([column]) => `e.${column}`).join(', ')}
    from unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')}) with ordinality as e(${COLUMNS.map(([column]) => column).join(', ')}, n)
    order by e.n
    on conflict do nothing`,
};

/**
 * PostgreSQL: a group of events and their changes in one autocommitted statement; the ids stored. The
 * rows go in by person, so two groups (of two instances) racing for the same people wait for each
 * other in one order and cannot deadlock.
 */
async function storeOnPostgres(db: Db, group: readonly Append[]): Promise<Set<string>> {
  const ordered = [...group].sort((a, b) => (a.event.employee_id < b.event.employee_id ? -1 : a.event.employee_id > b.event.employee_id ? 1 : 0));
  const columns = COLUMNS.map(([column]) => ordered.map(({ event }) => event[column]));
  return durableStatement(db, group.length, () => insertAllWithChanges(db, EVENTS_INSERT, columns, ordered.map(changeOf)));
}

/** SQLite: events per insert statement, in runs of a power of two (a handful of statement texts). */
const SQLITE_ROWS_PER_STATEMENT = 64;
const SQLITE_EVENT_ROW = `(${COLUMNS.map(() => '?').join(', ')})`;
const sqliteEventsInsert = (rows: number) =>
  `insert into timeclock_events (${COLUMNS.map(([column]) => column).join(', ')}) values ${Array(rows).fill(SQLITE_EVENT_ROW).join(', ')} on conflict do nothing returning id`;

/**
 * SQLite: a group of events in one transaction, synced before it returns the ids stored: the events
 * in multi-row inserts (in the group's order, so of two claiming one sequence the first is stored),
 * then the changes of those stored. Per event this replaced a savepoint, two inserts and a release.
 */
async function storeOnSqlite(db: Db, group: readonly Append[]): Promise<Set<string>> {
  const write = (db: Db) => db.transaction().execute(async (trx) => {
    const stored = new Set<string>();
    for (const run of powerOfTwoRuns(group, SQLITE_ROWS_PER_STATEMENT)) {
      const values = run.flatMap(({ event }) => COLUMNS.map(([column]) => event[column]));
      const { rows } = await trx.executeQuery<{ id: string }>(CompiledQuery.raw(sqliteEventsInsert(run.length), values));
      for (const { id } of rows) stored.add(id);
    }
    await recordCompanyChanges(trx, group.filter(({ event }) => stored.has(event.id)).map(changeOf));
    return stored;
  });
  return durably(db, write, group.length);
}

/**
 * Stores a group of events with their changes; each outcome says whether its event was stored (false:
 * a concurrent append took its sequence or eventId). If the group fails for any other reason, each
 * event is tried alone, so that only the failing one fails.
 */
async function appendGroup(db: Db, group: readonly Append[]): Promise<Array<Outcome<boolean>>> {
  try {
    const stored = await (sqliteHandleOf(db) ? storeOnSqlite(db, group) : storeOnPostgres(db, group));
    return group.map(({ event }) => ({ ok: true, value: stored.has(event.id) }));
  } catch (error) {
    if (group.length === 1) return [{ ok: false, error }];
    return Promise.all(group.map(async (append) => (await appendGroup(db, [append]))[0]!));
  }
}

const appendBatchers = new WeakMap<Db, Batcher<Append, boolean>>();

/**
 * Stores the event and its change-log entry (in the company of the event's person), committed and
 * on disk when this returns true; false when a concurrent append won its sequence or its eventId.
 */
export async function appendEvent(db: Db, append: Append): Promise<boolean> {
  let batcher = appendBatchers.get(db);
  if (!batcher) appendBatchers.set(db, (batcher = new Batcher((group) => appendGroup(db, group), MAX_GROUP)));
  return batcher.add(append);
}
