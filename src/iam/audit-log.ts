// The audit log as an organisation reads it (CONTRACT §6): its own events only, newest first,
// filtered by event type, client, user and time, keyset-paged; and the same filtered view as CSV.
// Rows hold no secret, code or token by construction (see audit.ts), so nothing is masked here.
import type { Db } from '../platform/db/database.ts';
import { badRequest, type FieldError } from '../platform/errors.ts';
import { rejectIf } from '../platform/validation.ts';

export interface AuditFilter {
  /** Event types (`login`, `token_issued`, `console_change`, …); any of them matches. */
  types?: string[];
  clientId?: string;
  userId?: string;
  /** `YYYY-MM-DD` (a UTC day; `to` includes its whole day) or an ISO 8601 instant (`to` exclusive). */
  from?: string;
  to?: string;
}

export interface AuditPageRequest extends AuditFilter {
  cursor?: string;
  /** 1 to 1000; default 100. */
  limit?: number;
}

export interface AuditEventView {
  id: string;
  /** ISO 8601 instant (UTC). */
  at: string;
  type: string;
  outcome: string;
  /** A short code saying what happened or why it failed. */
  detail: string | null;
  actor: { kind: 'operator' } | { kind: 'console_user'; id: string; email: string } | null;
  clientId: string | null;
  userId: string | null;
  address: string | null;
  context: Record<string, unknown> | null;
}

export const DEFAULT_AUDIT_PAGE = 100;
const MAX_AUDIT_PAGE = 1000;
const DAY_MS = 86_400_000;

interface Bounds {
  fromMs: number | undefined;
  toMs: number | undefined;
}

/** Epoch milliseconds of a `YYYY-MM-DD` (UTC) or an instant with offset; the end bound of a day is the next midnight. */
function instant(value: string | undefined, path: string, end: boolean, errors: FieldError[]): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const ms = Date.parse(`${value}T00:00:00Z`);
    if (!Number.isNaN(ms) && new Date(ms).toISOString().startsWith(value)) return end ? ms + DAY_MS : ms;
  } else if (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value)) {
    const ms = Date.parse(value);
    if (!Number.isNaN(ms)) return ms;
  }
  errors.push({ path, message: 'must be a date (YYYY-MM-DD) or an instant with offset (2026-11-25T09:00:00+01:00)' });
  return undefined;
}

function checkedFilter(filter: AuditPageRequest): Bounds & { limit: number } {
  const errors: FieldError[] = [];
  const fromMs = instant(filter.from, '/from', false, errors);
  const toMs = instant(filter.to, '/to', true, errors);
  if (fromMs !== undefined && toMs !== undefined && fromMs >= toMs) errors.push({ path: '/to', message: 'must be after from' });
  const limit = filter.limit ?? DEFAULT_AUDIT_PAGE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_AUDIT_PAGE) errors.push({ path: '/limit', message: `must be a whole number from 1 to ${MAX_AUDIT_PAGE}` });
  const types = filter.types ?? [];
  if (types.length > 50) errors.push({ path: '/types', message: 'must name at most 50 types' });
  types.forEach((type, i) => {
    if (!/^[a-z][a-z0-9_]{0,63}$/.test(type)) errors.push({ path: `/types/${i}`, message: 'must be an event type such as login or console_change' });
  });
  rejectIf(errors);
  return { fromMs, toMs, limit };
}

/** The keyset cursor: the last row's (at, id), base64url JSON. Bound to no secret: the query is always the organisation's. */
function encodePosition(at: number, id: string): string {
  return Buffer.from(JSON.stringify([at, id])).toString('base64url');
}

function decodePosition(cursor: string): [number, string] {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === 'string' && value[1].length <= 100) return [value[0] as number, value[1]];
  } catch {
    // fall through to the 400 below
  }
  throw badRequest('invalid_cursor', 'The cursor is invalid: pass nextCursor unchanged.', [{ path: '/cursor', message: 'is not a cursor of this listing' }]);
}

/** The page's query, newest first, one row more than `limit` (to know whether another page follows). */
export function auditEventsQuery(db: Db, organisationId: string, filter: AuditPageRequest) {
  const { fromMs, toMs, limit } = checkedFilter(filter);
  let query = db.selectFrom('audit_log').selectAll().where('organisation_id', '=', organisationId);
  if (filter.types && filter.types.length > 0) query = query.where('event', 'in', filter.types);
  if (filter.clientId) query = query.where('client_id', '=', filter.clientId);
  if (filter.userId) query = query.where('user_id', '=', filter.userId);
  if (fromMs !== undefined) query = query.where('at', '>=', fromMs);
  if (toMs !== undefined) query = query.where('at', '<', toMs);
  if (filter.cursor) {
    const [at, id] = decodePosition(filter.cursor);
    query = query.where((eb) => eb(eb.refTuple('at', 'id'), '<', eb.tuple(at, id)));
  }
  return { query: query.orderBy('at', 'desc').orderBy('id', 'desc').limit(limit + 1), limit };
}

type AuditRow = Awaited<ReturnType<ReturnType<typeof auditEventsQuery>['query']['execute']>>[number];

function presented(row: AuditRow): AuditEventView {
  const actor = row.actor_kind === 'operator' ? { kind: 'operator' as const }
    : row.actor_kind === 'console_user' ? { kind: 'console_user' as const, id: row.actor_id ?? '', email: row.actor_email ?? '' }
    : null;
  return {
    id: row.id,
    at: new Date(Number(row.at)).toISOString(),
    type: row.event,
    outcome: row.outcome,
    detail: row.detail,
    actor,
    clientId: row.client_id,
    userId: row.user_id,
    address: row.address,
    context: row.context === null ? null : JSON.parse(row.context) as Record<string, unknown>,
  };
}

/** One page of the organisation's audit log, newest first; `nextCursor` is null on the last page. */
export async function listAuditEvents(db: Db, organisationId: string, request: AuditPageRequest): Promise<{ data: AuditEventView[]; nextCursor: string | null }> {
  const { query, limit } = auditEventsQuery(db, organisationId, request);
  const rows = await query.execute();
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { data: page.map(presented), nextCursor: rows.length > limit && last ? encodePosition(Number(last.at), last.id) : null };
}

export const AUDIT_CSV_COLUMNS = ['at', 'type', 'outcome', 'detail', 'actor_kind', 'actor_id', 'actor_email', 'client_id', 'user_id', 'address', 'context'] as const;

/**
 * One CSV field (RFC 4180). A value a spreadsheet would run as a formula (`=`, `+`, `-`, `@`, tab,
 * carriage return first) is prefixed with `'`: the log quotes text people typed, such as a reason.
 */
export function csvField(value: string | null): string {
  if (value === null) return '';
  const safe = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

function csvLine(event: AuditEventView): string {
  const actor = event.actor;
  const fields = [
    event.at, event.type, event.outcome, event.detail,
    actor?.kind ?? null, actor?.kind === 'console_user' ? actor.id : null, actor?.kind === 'console_user' ? actor.email : null,
    event.clientId, event.userId, event.address, event.context === null ? null : JSON.stringify(event.context),
  ];
  return `${fields.map(csvField).join(',')}\r\n`;
}

/**
 * The filtered view (every page of it, newest first) as CSV text, in chunks of up to 1,000 lines,
 * for a response to stream: the first chunk is the header; each further one is one keyset page, so
 * no single step holds the event loop however long the log. The filter is checked here, before the
 * first chunk: a bad one throws its 400 while the response can still say so.
 */
export function auditEventsCsv(db: Db, organisationId: string, filter: AuditFilter): AsyncGenerator<string> {
  checkedFilter(filter);
  return csvChunks(db, organisationId, filter);
}

async function* csvChunks(db: Db, organisationId: string, filter: AuditFilter): AsyncGenerator<string> {
  yield `${AUDIT_CSV_COLUMNS.join(',')}\r\n`;
  let cursor: string | undefined;
  do {
    const page = await listAuditEvents(db, organisationId, { ...filter, limit: MAX_AUDIT_PAGE, ...(cursor ? { cursor } : {}) });
    if (page.data.length > 0) yield page.data.map(csvLine).join('');
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
}
