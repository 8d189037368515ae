// The audit log at a million rows (issue 13: "indexes that keep a filtered page fast at a million
// rows"). Fills one database per dialect with 1,000,000 audit rows — 90 % of them one
// organisation's, over 180 days, of the event mix a busy integration produces (60 % token_issued,
// 20 % login, 10 % client_authentication, 8 % token_refreshed, 2 % console_change) — then times the
// first page (100 rows) of the console's filtered views through the real `listAuditEvents`, and a
// page deep in the log through its cursor.
//   npx node bench/audit-log.ts [--db sqlite,postgres] [--rows 1000000] [--runs 20]
import { parseArgs } from 'node:util';
import { sql } from 'kysely';
import { createDatabase, type Db } from '../src/platform/db/database.ts';
import { migrateToLatest } from '../src/platform/db/migrate.ts';
import { createApiClient, createCompany, createOrganisation } from '../src/iam/provisioning.ts';
import { listAuditEvents, type AuditPageRequest } from '../src/iam/audit-log.ts';
import { freshBenchDatabase } from './databases.ts';
import type { Dialect } from './options.ts';

const { values } = parseArgs({ options: { db: { type: 'string' }, rows: { type: 'string' }, runs: { type: 'string' } } });
const dialects = (values.db ?? 'sqlite,postgres').split(',') as Dialect[];
const rows = Number(values.rows ?? 1_000_000);
const runs = Number(values.runs ?? 20);
const postgresUrl = process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SPAN_MS = 180 * 86_400_000;
const START = Date.parse('2026-05-01T00:00:00Z');
const SLOTS = 20;

interface Fixture {
  organisationId: string;
  clientIds: string[];
}

/** 20 clients (one API User id each): 18 of the measured organisation, 2 of another. */
async function provision(db: Db): Promise<Fixture> {
  const measured = (await createOrganisation(db, { name: 'Measured' })).organisationId;
  const other = (await createOrganisation(db, { name: 'Other' })).organisationId;
  await db.schema.createTable('bench_slots').addColumn('n', 'integer').addColumn('org', 'text').addColumn('client_id', 'text').addColumn('user_id', 'text').execute();
  const clientIds: string[] = [];
  for (let n = 0; n < SLOTS; n++) {
    const organisationId = n < 18 ? measured : other;
    const { companyId } = await createCompany(db, { organisationId, name: `Company ${n}`, timezone: 'Europe/Amsterdam', currency: 'EUR' });
    const { clientId } = await createApiClient(db, { companyId, name: `Client ${n}`, redirectUris: ['https://app.example.com/cb'] });
    clientIds.push(clientId);
    await sql`insert into bench_slots (n, org, client_id, user_id) values (${n}, ${organisationId}, ${clientId}, ${`usr_bench_${n}`})`.execute(db);
  }
  return { organisationId: measured, clientIds };
}

/**
 * The rows, generated inside the database (a recursive CTE on SQLite, generate_series on PostgreSQL),
 * 100,000 per statement so none runs into the statement timeout.
 */
async function fill(db: Db, dialect: Dialect): Promise<void> {
  const chunk = 100_000;
  const step = Math.floor(SPAN_MS / rows);
  const pad = dialect === 'sqlite' ? sql`printf('aud_bench_%09d', g.i)` : sql`'aud_bench_' || lpad(g.i::text, 9, '0')`;
  const mix = sql`((g.i / 20) * 7 + g.i) % 100`;
  for (let low = 1; low <= rows; low += chunk) {
    const high = Math.min(rows, low + chunk - 1);
    const source = dialect === 'sqlite'
      ? sql`(with recursive g(i) as (select ${low} union all select i + 1 from g where i < ${high}) select i from g)`
      : sql`(select i from generate_series(${low}::int, ${high}::int) as s(i))`;
    await sql`insert into audit_log (id, at, event, outcome, organisation_id, client_id, user_id, address, detail, actor_kind)
      select ${pad}, cast(${START} as bigint) + cast(g.i as bigint) * ${step},
        case when ${mix} < 60 then 'token_issued' when ${mix} < 80 then 'login' when ${mix} < 90 then 'client_authentication'
             when ${mix} < 98 then 'token_refreshed' else 'console_change' end,
        'success', s.org, s.client_id, s.user_id, '203.0.113.7', null,
        case when ${mix} >= 98 then 'console_user' else null end
      from ${source} as g join bench_slots as s on s.n = g.i % ${SLOTS}`.execute(db);
  }
  await sql`analyze`.execute(db);
}

function median(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

async function time(db: Db, organisationId: string, request: AuditPageRequest): Promise<{ median: number; max: number; count: number }> {
  const samples: number[] = [];
  let count = 0;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    count = (await listAuditEvents(db, organisationId, request)).data.length;
    samples.push(performance.now() - started);
  }
  return { median: median(samples), max: Math.max(...samples), count };
}

async function measure(dialect: Dialect): Promise<void> {
  const database = await freshBenchDatabase(dialect, postgresUrl);
  // Filling takes longer than the service allows one statement.
  const db = createDatabase(database.url, { statementTimeoutMs: 600_000 });
  try {
    await migrateToLatest(db);
    const fixture = await provision(db);
    const filling = performance.now();
    await fill(db, dialect);
    console.log(`${dialect}: ${rows.toLocaleString('en')} rows in ${((performance.now() - filling) / 1000).toFixed(1)} s`);
    const middle = await listAuditEvents(db, fixture.organisationId, { limit: 1, from: new Date(START + SPAN_MS / 2).toISOString().slice(0, 10), to: '2026-12-31' });
    const deep = (await listAuditEvents(db, fixture.organisationId, { limit: 1, cursor: Buffer.from(JSON.stringify([Date.parse(middle.data.at(-1)?.at ?? ''), 'aud_bench_'])).toString('base64url') })).nextCursor ?? undefined;
    const client = fixture.clientIds[3] ?? '';
    const views: [string, AuditPageRequest][] = [
      ['no filter', {}],
      ['type console_change (2 %)', { types: ['console_change'] }],
      ['types login + token_issued', { types: ['login', 'token_issued'] }],
      ['one client (5 %)', { clientId: client }],
      ['one user', { userId: 'usr_bench_3' }],
      ['last 7 days', { from: '2026-10-21', to: '2026-10-28' }],
      ['console_change in one month', { types: ['console_change'], from: '2026-07-01', to: '2026-07-31' }],
      ['console_change of one client (0.1 %)', { types: ['console_change'], clientId: client }],
      ['login of one client, none in range', { types: ['login'], clientId: client, from: '2026-01-01', to: '2026-02-01' }],
      ['a page 450,000 rows deep', { ...(deep ? { cursor: deep } : {}) }],
    ];
    for (const [label, request] of views) {
      const result = await time(db, fixture.organisationId, { ...request, limit: 100 });
      console.log(`| ${dialect} | ${label} | ${result.count} | ${result.median.toFixed(2)} ms | ${result.max.toFixed(2)} ms |`);
    }
  } finally {
    await db.destroy();
    await database.drop();
  }
}

console.log('| database | view (first page of 100) | rows | median | max |');
console.log('|---|---|---|---|---|');
for (const dialect of dialects) await measure(dialect);
