// `npm test` and `npm run test:postgres`: every file under test/, in two processes per core (one on
// PostgreSQL, see main())
// (scripts/test-together.ts runs a share of the files one after the other), so the app's modules
// load once per process instead of once per file. Two per core, because a test file spends much of
// its time waiting (timers, the processes and browser it drives, the database): while one share
// waits, the other computes. Shares are balanced by each file's CPU seconds as last measured on the
// database the run uses (scripts/test-costs.json; `--costs` measures them again and rewrites them). Each
// process's report is printed whole when it ends, then the totals; the exit status is 1 when any test
// failed or any process did not end cleanly.
//
//   node scripts/test.ts [--jobs N] [--costs] [test file…]
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { globSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const COSTS_FILE = new URL('test-costs.json', import.meta.url);
const TOGETHER = new URL('test-together.ts', import.meta.url).pathname;
const COUNTER = new URL('test-counts.ts', import.meta.url).pathname;
const DIALECT = process.env.WFS_TEST_DATABASE === 'postgres' ? 'postgres' : 'sqlite';
const COUNTS = ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo'] as const;
type Counts = Record<(typeof COUNTS)[number], number>;

interface Outcome {
  files: string[];
  code: number | NodeJS.Signals | null;
  counts: Counts | undefined;
}

function readJson<T>(file: string | URL): T | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/**
 * Files that measure their own process — the main thread's CPU between two turns of the event loop —
 * run in a process of their own: in a shared one, the heap other files left behind would be collected
 * inside the windows they measure.
 */
const ALONE = new Set(['test/platform/event-loop-hold.test.ts']);

/** Largest first, each to the share with the least so far; a file never measured counts as a typical one. */
function shares(files: string[], jobs: number, costs: Record<string, number>): string[][] {
  const alone = files.filter((file) => ALONE.has(file)).map((file) => [file]);
  return [...alone, ...sharesOf(files.filter((file) => !ALONE.has(file)), jobs, costs)];
}

function sharesOf(files: string[], jobs: number, costs: Record<string, number>): string[][] {
  const known = Object.values(costs).sort((a, b) => a - b);
  const typical = known[Math.floor(known.length / 2)] ?? 1;
  const cost = (file: string): number => costs[file] ?? typical;
  const planned = Array.from({ length: jobs }, () => ({ files: [] as string[], cost: 0 }));
  for (const file of [...files].sort((a, b) => cost(b) - cost(a))) {
    const least = planned.reduce((smallest, next) => (next.cost < smallest.cost ? next : smallest));
    least.files.push(file);
    least.cost += cost(file);
  }
  return planned.map((share) => share.files.sort()).filter((share) => share.length > 0);
}

/**
 * Stopped (Ctrl-C, a CI time limit), the processes are stopped too, and what they reported so far
 * is printed as they end: a test that hangs shows where.
 */
const running = new Set<ChildProcess>();
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => running.forEach((child) => child.kill(signal)));

/** One process running `files`; its report printed whole when it ends. */
async function run(files: string[], countsFile: string, costsFile: string | undefined): Promise<Outcome> {
  const started = performance.now();
  const env = { ...process.env, ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}), ...(costsFile ? { WFS_TEST_COSTS: costsFile } : {}) };
  // The spec report for people; the counts, without test-together's one test per file, for the totals.
  const reporters = ['--test-reporter=spec', '--test-reporter-destination=stdout', `--test-reporter=${COUNTER}`, `--test-reporter-destination=${countsFile}`];
  // --test-force-exit: once every test of the share has finished, the process ends even if a handle
  // is left open (a reconnect timer of a server a test stopped): a share that ran its tests must not
  // hold CI for ever. A test that never finishes still does, and Ctrl-C shows where.
  const child = spawn(process.execPath, ['--test-force-exit', ...reporters, TOGETHER, ...files], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.add(child);
  const output: Buffer[] = [];
  child.stdout.on('data', (chunk: Buffer) => output.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => output.push(chunk));
  const [exit, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  const code = exit ?? signal;
  running.delete(child);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`\n── ${files.length} test file(s) in one process (its counts include a test per file): exit ${code}, ${seconds} s ──\n${Buffer.concat(output).toString()}`);
  return { files, code, counts: readJson<Counts>(countsFile) };
}

type Costs = Partial<Record<typeof DIALECT, Record<string, number>>>;

/** Each file's CPU seconds as measured in this run, merged into the known ones of this database. */
function saveCosts(costsFile: string, all: Costs): void {
  const costs = { ...all[DIALECT] };
  for (const line of readFileSync(costsFile, 'utf8').split('\n').filter(Boolean)) {
    const { file, cpu } = JSON.parse(line) as { file: string; cpu: number };
    costs[file] = Math.round(cpu * 10) / 10;
  }
  const sorted = Object.fromEntries(Object.entries(costs).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(COSTS_FILE, `${JSON.stringify({ ...all, [DIALECT]: sorted }, null, 2)}\n`);
}

async function main(): Promise<number> {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { jobs: { type: 'string' }, costs: { type: 'boolean' } } });
  const files = positionals.length > 0 ? positionals : globSync('test/**/*.test.ts').sort();
  // PostgreSQL: one per core, as many files at a time as before. A file opens up to ~75 connections at
  // its peak (seen in pg_stat_activity); four at once ran into the server's 100 ("too many clients").
  const jobs = Number(values.jobs ?? (DIALECT === 'postgres' ? 1 : 2) * availableParallelism());
  const costs = readJson<Costs>(COSTS_FILE) ?? {};
  const scratch = mkdtempSync(join(tmpdir(), 'wfs-test-run-'));
  const costsFile = values.costs ? join(scratch, 'costs.jsonl') : undefined;
  const started = performance.now();
  try {
    const outcomes = await Promise.all(shares(files, jobs, costs[DIALECT] ?? {}).map((share, i) => run(share, join(scratch, `counts-${i}.json`), costsFile)));
    if (costsFile) saveCosts(costsFile, costs);
    const total = Object.fromEntries(COUNTS.map((name) => [name, outcomes.reduce((sum, outcome) => sum + (outcome.counts?.[name] ?? 0), 0)])) as Counts;
    console.log(`\n── ${files.length} files, ${outcomes.length} processes, ${((performance.now() - started) / 1000).toFixed(1)} s ──`);
    for (const name of COUNTS) console.log(`ℹ ${name} ${total[name]}`);
    const broken = outcomes.filter((outcome) => outcome.code !== 0 || !outcome.counts);
    for (const outcome of broken) console.log(`✖ a process ended with exit ${outcome.code}${outcome.counts ? '' : ' and no counts'}: ${outcome.files.join(' ')}`);
    return broken.length > 0 || total.fail > 0 || total.cancelled > 0 ? 1 : 0;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

process.exitCode = await main();
