// The results table: one row per measurement, one column per database set-up, each cell with the
// figure, its p99, its share of the bare baseline and pass/fail against the issue's target. Printed,
// and written into docs/benchmarks.md between markers (the hand-written text around them stays).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Measurement } from './measurement.ts';
import type { Resources } from './resources.ts';
import { ROWS, costGoalOf, goalText, goalsFor, type Goal, type Row } from './scenarios.ts';

export type Outcome = { measurement: Measurement } | { skipped: string };

export interface Column {
  readonly id: string;
  readonly title: string;
  readonly outcomes: Map<string, Outcome>;
  /** Column whose figure a cell is compared with (the two-instance run against the single one). */
  readonly scalesFrom?: string;
}

const START = '<!-- bench:results:start -->';
const END = '<!-- bench:results:end -->';

const number = (value: number, digits = 0) => value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ms = (value: number) => `${number(value, value < 10 ? 1 : 0)} ms`;

/** What a feature costs: the share of the rate without it that is lost with it. */
const costOf = (withIt: number, without: number) => 1 - withIt / without;

/**
 * Service and PostgreSQL CPU per answered request, in µs: what the work costs whatever the machine's
 * other load, which throughput is not. Its cost, 1 − without/with, is the throughput cost a CPU-bound
 * machine would show.
 */
export function cpuPerRequest(m: Measurement): number | undefined {
  if (!m.resources || !m.perSecond) return undefined;
  return ((m.resources.serviceCpu + (m.resources.postgresCpu ?? 0)) / m.perSecond) * 1e6;
}

function met(goal: Goal, m: Measurement, bare: number | undefined, related: Related): boolean | undefined {
  switch (goal.kind) {
    case 'share-of-bare':
      return bare === undefined || m.perSecond === undefined ? undefined : m.perSecond / bare >= goal.min;
    case 'per-second':
      return m.perSecond === undefined ? undefined : m.perSecond >= goal.min;
    case 'max-cost': {
      const withFeature = perSecondOf(related.withFeature);
      return withFeature === undefined || m.perSecond === undefined ? undefined : costOf(withFeature, m.perSecond) <= goal.max;
    }
    case 'ratio-to-peer': {
      const peer = perSecondOf(related.peer);
      return peer === undefined || m.perSecond === undefined ? undefined : m.perSecond / peer >= goal.min;
    }
    case 'median-latency':
      return m.medianMs === undefined ? undefined : m.medianMs < goal.maxMs;
  }
}

/** pass when every target judging the cell is met with no failed request; nothing when none can be judged. */
function verdict(goals: readonly Goal[], m: Measurement, bare: number | undefined, related: Related): string | undefined {
  const outcomes = goals.map((goal) => met(goal, m, bare, related)).filter((outcome) => outcome !== undefined);
  if (outcomes.length === 0) return undefined;
  return outcomes.every(Boolean) && m.failures === 0 ? 'pass' : '**fail**';
}

const perSecondOf = (outcome: Outcome | undefined) => (outcome && 'measurement' in outcome ? outcome.measurement.perSecond : undefined);

/** Cells a cell is compared with: the single-instance one, the same body from bare, the peer product. */
interface Related {
  readonly reference: Outcome | undefined;
  readonly sameBody: Outcome | undefined;
  readonly peer: Outcome | undefined;
  /** The peer signing ES256 JWTs, as the service does. */
  readonly peerLikeForLike: Outcome | undefined;
  /** The floor of the row's job (the token's signature alone). */
  readonly floor: Outcome | undefined;
  /** For a row measured without a feature: the same measurement with it. */
  readonly withFeature: Outcome | undefined;
}

const percent = (share: number) => `${number(share * 100)} %`;

/** What the row cost: CPU shares (1 core = 100 %), memory after it, event-loop delay p99. */
export function resourceParts(resources: Resources | undefined): string[] {
  if (!resources) return [];
  const parts = [`service CPU ${percent(resources.serviceCpu)}`];
  if (resources.postgresCpu !== undefined) parts.push(`PostgreSQL CPU ${percent(resources.postgresCpu)}`);
  if (resources.rssMiB !== undefined) parts.push(`RSS ${number(resources.rssMiB)} MiB`);
  if (resources.loopP99Ms !== undefined) parts.push(`loop p99 ${ms(resources.loopP99Ms)}`);
  return parts;
}

function cell(row: Row, column: Column, outcome: Outcome | undefined, bare: number | undefined, related: Related): string {
  if (!outcome) return '';
  if ('skipped' in outcome) return `n/a (${outcome.skipped})`;
  const m = outcome.measurement;
  if (m.samples === 0) return `no 2xx answer${m.failures > 0 ? ` (${number(m.failures)} failed)` : ' in the window'} · **fail**`;
  const parts: string[] = [];
  if (m.perSecond !== undefined) {
    parts.push(`${number(m.perSecond)}${row.unit ? ` ${row.unit}` : ''}/s`, `p99 ${ms(m.p99Ms)}`);
    // A rate of something other than requests (changes, deliveries) is no share of a request rate.
    const share = bare === undefined || row.unit ? undefined : (m.perSecond / bare) * 100;
    if (share !== undefined && row.id !== 'bare') parts.push(`${number(share, share < 10 ? 1 : 0)} % of bare`);
    const single = perSecondOf(related.reference);
    if (single) parts.push(`×${number(m.perSecond / single, 2)} of 1 instance`);
    const bareSameBody = perSecondOf(related.sameBody);
    if (bareSameBody) parts.push(`${number((m.perSecond / bareSameBody) * 100)} % of the same body from bare`);
    const peer = perSecondOf(related.peer);
    if (peer) parts.push(`×${number(m.perSecond / peer, 2)} of oidc-provider`);
    const peerLikeForLike = perSecondOf(related.peerLikeForLike);
    if (peerLikeForLike) parts.push(`×${number(m.perSecond / peerLikeForLike, 2)} of oidc-provider signing ES256 JWTs`);
    const floor = perSecondOf(related.floor);
    if (floor) parts.push(`${number((m.perSecond / floor) * 100)} % of the signing floor`);
    const withFeature = perSecondOf(related.withFeature);
    const costGoal = costGoalOf(row);
    if (withFeature && costGoal) parts.push(`${costGoal.feature} costs ${number(costOf(withFeature, m.perSecond) * 100, 1)} %`);
    const cpuWith = related.withFeature && 'measurement' in related.withFeature ? cpuPerRequest(related.withFeature.measurement) : undefined;
    const cpuWithout = cpuPerRequest(m);
    if (costGoal && cpuWith !== undefined && cpuWithout !== undefined) {
      parts.push(`CPU per request ${number(cpuWith)} µs with it, ${number(cpuWithout)} µs without: ${number(costOf(cpuWithout, cpuWith) * 100, 1)} % of CPU`);
    }
  } else {
    parts.push(`median ${ms(m.medianMs ?? Number.NaN)}`, `p99 ${ms(m.p99Ms)}`, `${m.samples} runs`);
  }
  parts.push(...resourceParts(m.resources));
  if (m.failures > 0) parts.push(`${number(m.failures)} failed`);
  const mark = verdict(goalsFor(row, column.id), m, bare, related);
  if (mark) parts.push(mark);
  return parts.join(' · ');
}

/**
 * The baseline a column's shares are taken against: its own bare measurement, taken just before its
 * rows, or (a column without one) the first column's. The machine's speed drifts over a run's minutes.
 */
export function bareFigure(columns: readonly Column[], column?: Column): number | undefined {
  for (const candidate of column ? [column, ...columns] : columns) {
    const outcome = candidate.outcomes.get('bare');
    if (outcome && 'measurement' in outcome) return outcome.measurement.perSecond;
  }
  return undefined;
}

export function renderTable(columns: readonly Column[]): string {
  const used = ROWS.filter((row) => columns.some((c) => c.outcomes.has(row.id)));
  const lines = [
    `| measurement | target | ${columns.map((c) => c.title).join(' | ')} |`,
    `|---|---|${columns.map(() => '---').join('|')}|`,
  ];
  for (const row of used) {
    const cost = costGoalOf(row);
    const cells = columns.map((c) => {
      const reference = c.scalesFrom ? columns.find((o) => o.id === c.scalesFrom)?.outcomes.get(row.id) : undefined;
      const related = {
        reference,
        sameBody: row.sameBody ? c.outcomes.get(row.sameBody) : undefined,
        peer: row.peer ? c.outcomes.get(row.peer) : undefined,
        peerLikeForLike: row.peerLikeForLike ? c.outcomes.get(row.peerLikeForLike) : undefined,
        floor: row.floor ? c.outcomes.get(row.floor) : undefined,
        withFeature: cost ? c.outcomes.get(cost.with) : undefined,
      };
      return cell(row, c, c.outcomes.get(row.id), bareFigure(columns, c), related);
    });
    lines.push(`| ${row.label} | ${goalText(row.goals)} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

export function renderNotes(columns: readonly Column[]): string[] {
  const notes: string[] = [];
  for (const column of columns) {
    for (const [rowId, outcome] of column.outcomes) {
      if ('measurement' in outcome && outcome.measurement.note) notes.push(`${column.title}, ${rowId}: ${outcome.measurement.note}`);
    }
  }
  return notes;
}

/** Replaces the generated section of the document, keeping everything outside the markers. */
export function writeSection(path: string, section: string): void {
  const generated = `${START}\n${section.trim()}\n${END}`;
  const current = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const start = current.indexOf(START);
  const end = current.indexOf(END);
  const next = start >= 0 && end > start ? `${current.slice(0, start)}${generated}${current.slice(end + END.length)}` : `${current.trimEnd()}\n\n${generated}\n`;
  writeFileSync(path, next);
}
