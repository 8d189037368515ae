// Query plans of the read endpoints (issue 3: "no query whose cost grows with the number of
// companies"). Loads the benchmark company among many other companies, runs the real endpoints
// in-process with a plugin that records every SQL statement they execute, and prints each one's plan
// on SQLite (EXPLAIN QUERY PLAN) and PostgreSQL (EXPLAIN). A line that reads a whole table — `SCAN`
// on SQLite, `Seq Scan` on PostgreSQL — is flagged: its cost grows with every company's rows.
// PostgreSQL rightly reads a table of a few pages whole whatever its indexes, so its plan is taken a
// second time with sequential scans disabled: a `Seq Scan` that remains has no index to use.
//   npx node bench/explain.ts [--db sqlite,postgres] [--days 14] [--companies 30]
import { parseArgs } from 'node:util';
import { CompiledQuery, sql, type KyselyPlugin, type PluginTransformQueryArgs, type PluginTransformResultArgs, type QueryResult, type RootOperationNode, type UnknownRow } from 'kysely';
import type { AppContext } from '../src/app/context.ts';
import { buildApp } from '../src/app/app.ts';
import { addDays, today } from '../src/platform/period.ts';
import { importCompanyData } from '../src/company/import.ts';
import { provisionTenant } from '../test/support/tenants.ts';
import { freshBenchDatabase } from './databases.ts';
import { BENCH_TIMEZONE, closeContext, openBenchContext, provisionBenchTenant } from './tenant.ts';
import { loadCompany } from './company.ts';
import { shiftDocument, staffDocument } from './dataset.ts';
import type { Dialect } from './options.ts';

const { values } = parseArgs({ options: { db: { type: 'string' }, days: { type: 'string' }, companies: { type: 'string' } } });
const dialects = (values.db ?? 'sqlite,postgres').split(',') as Dialect[];
// From today − 8: 14 days reach past today, so the feed and the timetable find shifts.
const days = Number(values.days ?? 14);
const otherCompanies = Number(values.companies ?? 30);
const postgresUrl = process.env.WFS_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Records the compiled SQL of every statement, leaving it unchanged. */
class RecordQueries implements KyselyPlugin {
  readonly #compile: (node: RootOperationNode, args: PluginTransformQueryArgs) => CompiledQuery;
  readonly queries: CompiledQuery[] = [];

  constructor(ctx: AppContext) {
    const executor = ctx.db.getExecutor();
    this.#compile = (node, args) => executor.compileQuery(node, args.queryId);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    this.queries.push(this.#compile(args.node, args));
    return args.node;
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return args.result;
  }
}

async function postgresPlan(ctx: AppContext, query: CompiledQuery, indexesOnly: boolean): Promise<string[]> {
  return ctx.db.transaction().execute(async (trx) => {
    if (indexesOnly) await sql`set local enable_seqscan = off`.execute(trx);
    const { rows } = await trx.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]));
    return rows.map((r) => r['QUERY PLAN']);
  });
}

/** The plan to print, and the plan whose lines are judged. */
async function plan(ctx: AppContext, dialect: Dialect, query: CompiledQuery): Promise<{ shown: string[]; judged: string[] }> {
  if (dialect === 'postgres') {
    const shown = await postgresPlan(ctx, query, false);
    const judged = await postgresPlan(ctx, query, true);
    return { shown: [...shown, '-- with enable_seqscan = off:', ...judged], judged };
  }
  const { rows } = await ctx.db.executeQuery<{ id: number; parent: number; detail: string }>(CompiledQuery.raw(`explain query plan ${query.sql}`, [...query.parameters]));
  const depth = new Map<number, number>([[0, 0]]);
  const lines = rows.map((r) => {
    const level = (depth.get(r.parent) ?? 0) + 1;
    depth.set(r.id, level);
    return `${'  '.repeat(level - 1)}${r.detail}`;
  });
  return { shown: lines, judged: lines };
}

function readsWholeTable(line: string): boolean {
  if (/Seq Scan on /.test(line)) return true;
  // json_each walks one row's JSON list, not a table.
  return /^\s*SCAN (?!json_each|CONSTANT ROW)/.test(line) && !/SCAN \w+ USING (COVERING )?INDEX .*\(/.test(line);
}

async function loadOtherCompanies(ctx: AppContext): Promise<void> {
  const shape = { employees: 100, shiftsPerDay: 200 };
  const firstDate = addDays(today(BENCH_TIMEZONE), -8);
  for (let i = 0; i < otherCompanies; i++) {
    const tenant = await provisionTenant(ctx, { name: `Other ${i}`, timezone: BENCH_TIMEZONE });
    await importCompanyData(ctx.db, tenant.companyId, staffDocument(shape));
    await importCompanyData(ctx.db, tenant.companyId, shiftDocument(firstDate, days, shape));
  }
}

async function explainDialect(dialect: Dialect): Promise<number> {
  const database = await freshBenchDatabase(dialect, postgresUrl);
  const ctx = await openBenchContext(database.url);
  let flagged = 0;
  try {
    const tenant = await provisionBenchTenant(ctx);
    await loadCompany(ctx, tenant.companyId, { employees: 1000, shiftsPerDay: 2000, days });
    await loadOtherCompanies(ctx);
    await ctx.db.executeQuery(CompiledQuery.raw('analyze'));
    const recorder = new RecordQueries(ctx);
    const app = await buildApp({ ...ctx, db: ctx.db.withPlugin(recorder) }, { logger: false });
    const day = today(BENCH_TIMEZONE);
    const endpoints = {
      feed: `/api/v1/feeds/timetable?date=${day}`,
      timetable: `/api/v1/company/timetable?from=${day}&to=${addDays(day, 30)}`,
      users: '/api/v1/company/users',
      configuration: '/api/v1/company/configuration',
    };
    process.stdout.write(`\n# ${dialect}: 1 company of 1,000 employees and ${(2000 * days).toLocaleString('en-US')} shifts among ${otherCompanies} others of 100 employees\n`);
    for (const [name, url] of Object.entries(endpoints)) {
      recorder.queries.length = 0;
      const response = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${tenant.idToken}` } });
      process.stdout.write(`\n## ${name}: GET ${url} → ${response.statusCode}\n`);
      for (const query of [...recorder.queries]) {
        if (!/^\s*(select|with)/i.test(query.sql)) continue;
        const { shown, judged } = await plan(ctx, dialect, query);
        const whole = new Set(judged.filter(readsWholeTable));
        flagged += whole.size;
        process.stdout.write(`\n${query.sql}\n${shown.map((l) => `    ${l}${whole.has(l) ? '   <-- reads the whole table' : ''}`).join('\n')}\n`);
      }
    }
    await app.close();
  } finally {
    await closeContext(ctx);
    await database.drop();
  }
  return flagged;
}

let total = 0;
for (const dialect of dialects) total += await explainDialect(dialect);
process.stdout.write(`\n${total === 0 ? 'No plan reads a whole table.' : `${total} plan line(s) read a whole table.`}\n`);
