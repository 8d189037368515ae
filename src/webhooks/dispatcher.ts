// Delivers webhook messages (CONTRACT §7). Every instance runs a dispatcher; they share the work
// through leases in the database: an instance claims due endpoints (PostgreSQL: FOR UPDATE SKIP
// LOCKED, so two instances never claim the same one; SQLite has one writer), delivers to each in
// order, renews the lease with every recorded attempt, and releases it when the endpoint has nothing
// more to send or must wait. A dead instance's leases run out after `leaseMs` (30 s by default) and
// another instance takes its endpoints over. While an instance holds the lease, nobody else sends to
// that endpoint, so in normal operation no message is sent twice; after a crash between sending and
// recording, the message is sent again (at least once).
//
// Time: "now" is ctx.clock (tests move a ManualClock through the retry schedule); the poll timer is a
// real, unref'd timer, stopped by close(). A retry waits its pause from the end of the failed attempt,
// and the instance that released the endpoint to wait looks again when it falls due (a poll is at most
// pollMs away, so a retry would otherwise go out up to 500 ms late).
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type { Db, DialectName } from '../platform/db/database.ts';
import type { Clock } from '../platform/clock.ts';
import type { SecretBox } from '../platform/sealed-secrets.ts';
import type { Change, ChangeStream } from './change-stream.ts';
import type { DestinationPolicy } from './destination.ts';
import { signingSecrets, type EndpointRow } from './endpoints.ts';
import { changeMessage, firstQueued, nextOrdinal, type Message } from './messages.ts';
import { Sender, type AttemptOutcome } from './sender.ts';
import { signedHeaders } from './signing.ts';
import { newId } from '../platform/ids.ts';

export interface DeliveryObserver {
  /** One attempt made, and whether it succeeded. */
  attempted(success: boolean, seconds: number): void;
  /** A change delivered, `seconds` after it occurred. */
  delivered(seconds: number): void;
}

export interface DispatcherOptions {
  db: Db;
  dialect: DialectName;
  clock: Clock;
  box: () => Promise<SecretBox>;
  stream: ChangeStream;
  timeoutMs: number;
  /** Waits before each retry, in milliseconds (WEBHOOK_RETRY_SCHEDULE). */
  schedule: readonly number[];
  policy: DestinationPolicy;
  observer?: DeliveryObserver;
  onError?: (error: unknown) => void;
  pollMs?: number;
  leaseMs?: number;
  /** Endpoints this instance delivers to at once. */
  concurrency?: number;
  /** How long the delivery log keeps an attempt (the change log's retention). */
  deliveryRetentionMs: number;
}

/** A Retry-After longer than this is not honoured beyond it: one receiver cannot park its endpoint for a year. */
const LONGEST_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;
const CHANGES_READ_AT_ONCE = 100;
/** Retry times kept to look at when due; beyond these (endpoints all waiting at once) the poll finds them. */
const MAX_KEPT_RETRIES = 1000;
/** Deliveries recorded by one commit at most, and the longest a delivery waits to be recorded. */
const RECORD_AT_MOST = 100;
const RECORD_WITHIN_MS = 50;
const WAKE_INTERVAL_MS = 20;
/** How often an instance removes expired delivery-log rows. */
const PRUNE_EVERY_MS = 60_000;

/** The wait before retry number `attempt` (1-based): the schedule's entry plus up to 10 % jitter, or a longer Retry-After. */
export function retryWait(schedule: readonly number[], attempt: number, retryAfterMs: number | null, random = Math.random()): number | null {
  const base = schedule[attempt - 1];
  if (base === undefined) return null;
  const wait = Math.round(base * (1 + 0.1 * random));
  return retryAfterMs !== null && retryAfterMs > wait ? Math.min(retryAfterMs, LONGEST_RETRY_AFTER_MS) : wait;
}

function typesOf(row: EndpointRow): string[] | undefined {
  return row.types === null ? undefined : (JSON.parse(row.types) as string[]);
}

/** Changes read ahead for one endpoint while its lease is held. */
class ChangeBuffer {
  #changes: Change[] = [];
  #types: string | null = null;
  /** When the last read found nothing: the company's log is read through this seq for these types. */
  emptyThrough = 0;

  async next(options: DispatcherOptions, row: EndpointRow): Promise<Change | undefined> {
    if (this.#types !== row.types) this.#changes = [];
    this.#types = row.types;
    while (this.#changes.length > 0 && (this.#changes[0]?.seq ?? 0) <= row.delivered_seq) this.#changes.shift();
    if (this.#changes.length === 0) {
      const window = await options.stream.after(options.db, row.company_id, row.delivered_seq, CHANGES_READ_AT_ONCE, typesOf(row));
      this.#changes = window.changes;
      this.emptyThrough = window.changes.length === 0 ? window.throughSeq : 0;
    }
    return this.#changes[0];
  }
}

/** One attempt made and not recorded yet. */
interface Attempt {
  message: Message;
  outcome: AttemptOutcome;
  attempt: number;
  /** "Now" of the attempt (the clock's), and when it started (performance.now(), for batching). */
  at: number;
  startedAt: number;
  ordinal: number;
  /** The endpoint's state after it. */
  state: Partial<EndpointRow>;
}

export class WebhookDispatcher {
  /** Written into the leases it holds: which host and process delivers to an endpoint, for operators. */
  readonly instanceId = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  readonly #options: DispatcherOptions;
  readonly #sender = new Sender();
  readonly #working = new Map<string, Promise<void>>();
  readonly #pollMs: number;
  readonly #leaseMs: number;
  readonly #concurrency: number;
  #timer: NodeJS.Timeout | undefined;
  /** performance.now() at which #timer fires; Infinity while none is armed. */
  #timerAt = Number.POSITIVE_INFINITY;
  /**
   * The retries (clock times) of endpoints this instance released to wait, soonest first, each until
   * a look at or after it; at most MAX_KEPT_RETRIES (the poll finds any other).
   */
  readonly #retryTimes: number[] = [];
  #ticking = false;
  #lastTick = 0;
  #lastPrune = Number.NEGATIVE_INFINITY;
  #wakeAgain = false;
  #closing = false;
  /** Whether the database held an enabled endpoint when last looked (at most every poll); true until known. */
  #endpointsEnabled = true;
  #endpointsCheckedAt = Number.NEGATIVE_INFINITY;

  constructor(options: DispatcherOptions) {
    this.#options = options;
    this.#pollMs = options.pollMs ?? 500;
    // The lease outlives the longest attempt with room to record it.
    this.#leaseMs = options.leaseMs ?? Math.max(30_000, options.timeoutMs + 15_000);
    this.#concurrency = options.concurrency ?? 16;
  }

  start(): void {
    this.#schedule(0);
  }

  /**
   * Looks for work now (a message queued, an endpoint enabled), or as soon as WAKE_INTERVAL_MS has
   * passed since the last look: a burst of wake-ups costs one claim, not one each.
   */
  wake(): void {
    this.#endpointsEnabled = true;
    this.#wakeSoon();
  }

  /**
   * A change committed: look for work as wake() does, unless no endpoint was enabled at the last look.
   * While writes flow a look every WAKE_INTERVAL_MS costs ~5 % of a core (service and database,
   * docs/benchmarks.md), for nothing on an install without webhooks. An endpoint enabled here wakes
   * the dispatcher itself (wake()); one enabled on another instance is found by the next poll.
   */
  changed(): void {
    if (this.#endpointsEnabled) this.#wakeSoon();
  }

  #wakeSoon(): void {
    if (this.#ticking) this.#wakeAgain = true;
    else this.#schedule(Math.max(0, WAKE_INTERVAL_MS - (performance.now() - this.#lastTick)));
  }

  /** Stops claiming, lets the attempts in flight finish and be recorded, and releases the leases. */
  async close(): Promise<void> {
    this.#closing = true;
    clearTimeout(this.#timer);
    await Promise.allSettled(this.#working.values());
    this.#sender.close();
  }

  /** Looks for work in `delayMs`, unless a look is already due sooner. */
  #schedule(delayMs: number): void {
    const at = performance.now() + delayMs;
    if (this.#closing || at >= this.#timerAt) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    this.#timer = setTimeout(() => {
      this.#timerAt = Number.POSITIVE_INFINITY;
      void this.#tick();
    }, delayMs);
    this.#timer.unref();
  }

  /** An endpoint released to wait for a retry at `at` (clock time): look for it then, if before the next poll. */
  #wakeAt(at: number): void {
    const times = this.#retryTimes;
    let index = times.length;
    while (index > 0 && (times[index - 1] ?? 0) > at) index -= 1;
    times.splice(index, 0, at);
    if (times.length > MAX_KEPT_RETRIES) times.pop();
    if (!this.#ticking) this.#schedule(this.#untilNextLook());
  }

  /** The next poll, or the earliest retry this instance knows of when that comes first. */
  #untilNextLook(): number {
    return Math.min(this.#pollMs, Math.max(0, (this.#retryTimes[0] ?? Number.POSITIVE_INFINITY) - this.#options.clock.now()));
  }

  async #tick(): Promise<void> {
    this.#ticking = true;
    this.#lastTick = performance.now();
    // A retry that has fallen due is claimed by this look (or, with no room, by a later poll).
    const now = this.#options.clock.now();
    while ((this.#retryTimes[0] ?? Number.POSITIVE_INFINITY) <= now) this.#retryTimes.shift();
    try {
      await this.#pruneDeliveries();
      const free = this.#concurrency - this.#working.size;
      if (free > 0) {
        for (const row of await this.#claim(free)) {
          const work = this.#work(row).catch((error: unknown) => this.#options.onError?.(error)).finally(() => this.#working.delete(row.id));
          this.#working.set(row.id, work);
        }
      }
      await this.#checkEndpoints();
    } catch (error) {
      this.#options.onError?.(error);
    } finally {
      this.#ticking = false;
      this.#schedule(this.#wakeAgain ? 0 : this.#untilNextLook());
      this.#wakeAgain = false;
    }
  }

  /** Whether any endpoint is enabled, looked up at most once per poll interval (see changed()). */
  async #checkEndpoints(): Promise<void> {
    if (this.#working.size > 0) {
      this.#endpointsEnabled = true;
      return;
    }
    if (performance.now() - this.#endpointsCheckedAt < this.#pollMs) return;
    this.#endpointsCheckedAt = performance.now();
    this.#endpointsEnabled = (await this.#options.db.selectFrom('webhook_endpoints').select('id').where('enabled', '=', 1).limit(1).executeTakeFirst()) !== undefined;
  }

  /**
   * Removes delivery-log rows older than the retention, at most every PRUNE_EVERY_MS (by the clock),
   * endpoint by endpoint so that each delete walks the (endpoint, attempted_at) index.
   */
  async #pruneDeliveries(): Promise<void> {
    const { db, clock, deliveryRetentionMs } = this.#options;
    const now = clock.now();
    if (now - this.#lastPrune < PRUNE_EVERY_MS) return;
    this.#lastPrune = now;
    for (const { id } of await db.selectFrom('webhook_endpoints').select('id').execute()) {
      await db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).where('attempted_at', '<', now - deliveryRetentionMs).execute();
    }
  }

  /** Leases up to `limit` enabled endpoints that are due and not leased by a live instance. */
  async #claim(limit: number): Promise<EndpointRow[]> {
    const { db, dialect, clock } = this.#options;
    const now = clock.now();
    const busy = [...this.#working.keys()];
    let due = db
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('enabled', '=', 1)
      .where('next_attempt_at', '<=', now)
      .where('lease_until', '<', now)
      .orderBy('next_attempt_at')
      .limit(limit);
    if (busy.length > 0) due = due.where('id', 'not in', busy);
    if (dialect === 'postgres') due = due.forUpdate().skipLocked();
    return db
      .updateTable('webhook_endpoints')
      .set({ lease_owner: this.instanceId, lease_until: now + this.#leaseMs })
      .where('id', 'in', due)
      .where('lease_until', '<', now)
      .returningAll()
      .execute();
  }

  async #work(claimed: EndpointRow): Promise<void> {
    const buffer = new ChangeBuffer();
    const unrecorded: Attempt[] = [];
    let row: EndpointRow | undefined = claimed;
    let idle = false;
    try {
      while (row && !this.#closing && row.enabled === 1 && row.next_attempt_at <= this.#options.clock.now()) {
        const message = await this.#head(row, buffer, unrecorded.length === 0);
        if (!message) {
          idle = true;
          break;
        }
        const attempt = await this.#attempt(row, message);
        unrecorded.push(attempt);
        // The endpoint as it stands after this attempt, written with the next record.
        row = { ...row, ...attempt.state };
        if (!this.#canWait(attempt, unrecorded)) row = await this.#record(row, unrecorded.splice(0));
      }
    } finally {
      if (row && unrecorded.length > 0) row = await this.#record(row, unrecorded.splice(0));
      // Nothing for this endpoint up to the log's readable seq: start the next read there, past the
      // other types' (and, once, the other companies') changes, instead of scanning them again.
      const skipTo = idle && row && row.head_attempt === 0 && buffer.emptyThrough > row.delivered_seq ? buffer.emptyThrough : undefined;
      await this.#options.db
        .updateTable('webhook_endpoints')
        .set({ lease_owner: null, lease_until: 0, ...(skipTo === undefined ? {} : { delivered_seq: skipTo }) })
        .where('id', '=', claimed.id)
        .where('lease_owner', '=', this.instanceId)
        .execute();
      if (row && row.enabled === 1 && row.next_attempt_at > this.#options.clock.now()) this.#wakeAt(row.next_attempt_at);
    }
  }

  /**
   * Whether an attempt may wait to be recorded with the next ones: a change delivered, while the
   * unrecorded ones are few and young. One commit then records a run of deliveries (a commit per
   * message would cost more than the message). A failure or a queued message is recorded at once:
   * the next head depends on it. Should this instance die meanwhile, the unrecorded ones are sent
   * again by the next (at least once).
   */
  #canWait(attempt: Attempt, unrecorded: readonly Attempt[]): boolean {
    const first = unrecorded[0];
    return attempt.outcome.error === null && attempt.message.queuedId === undefined && unrecorded.length < RECORD_AT_MOST && first !== undefined && performance.now() - first.startedAt < RECORD_WITHIN_MS;
  }

  /**
   * The message to send next: a failing change keeps its place at the head; otherwise messages a
   * request queued (test, replay, retry) go first, then the next change of the log. While
   * deliveries wait to be recorded, the queue is not looked at: its messages go after them.
   */
  async #head(row: EndpointRow, buffer: ChangeBuffer, lookAtQueue: boolean): Promise<Message | undefined> {
    const change = await buffer.next(this.#options, row);
    const failing = row.head_attempt > 0 ? row.head_message_id : null;
    if (change && failing === change.id) return changeMessage(change);
    if (!lookAtQueue) return change && changeMessage(change);
    const queued = (failing === null ? undefined : await firstQueued(this.#options.db, row.id, failing)) ?? (await firstQueued(this.#options.db, row.id));
    return queued ?? (change && changeMessage(change));
  }

  /** Sends `message` once and works out where the endpoint stands after it. */
  async #attempt(row: EndpointRow, message: Message): Promise<Attempt> {
    const { clock, timeoutMs, policy } = this.#options;
    const startedAt = performance.now();
    const now = clock.now();
    const secrets = signingSecrets(row, await this.#options.box(), now);
    const headers = signedHeaders(secrets, message.id, Math.floor(now / 1000), message.body);
    const outcome = await this.#sender.attempt({ url: row.url, headers, body: message.body, timeoutMs, policy });
    this.#options.observer?.attempted(outcome.error === null, outcome.durationMs / 1000);
    const attempt = (row.head_message_id === message.id ? row.head_attempt : 0) + 1;
    // The retry's wait counts from the end of this attempt (answer, failure or timeout), not its start.
    return { message, outcome, attempt, at: now, startedAt, ordinal: nextOrdinal(), state: this.#nextState(row, message, outcome, attempt, clock.now()) };
  }

  /**
   * Records attempts (in order) and the endpoint's state after the last: past the messages on success;
   * to a later retry, or disabled, on failure. Answers the endpoint as it now stands, or undefined when
   * this instance lost its lease meanwhile (its state is then another instance's to write).
   */
  async #record(row: EndpointRow, attempts: Attempt[]): Promise<EndpointRow | undefined> {
    const { db, clock } = this.#options;
    const now = clock.now();
    const changed: Partial<EndpointRow> = Object.assign({}, ...attempts.map((attempt) => attempt.state)) as Partial<EndpointRow>;
    const updated = await db.transaction().execute(async (trx) => {
      const current = await trx
        .updateTable('webhook_endpoints')
        // Only what the attempts changed: a PATCH made meanwhile (disabling it, say) stands.
        .set({ ...changed, lease_until: now + this.#leaseMs })
        .where('id', '=', row.id)
        .where('lease_owner', '=', this.instanceId)
        .returningAll()
        .executeTakeFirst();
      await trx.insertInto('webhook_deliveries').values(attempts.map(({ message, outcome, attempt, at, ordinal, state }) => ({
        id: newId('whd', at),
        endpoint_id: row.id,
        message_id: message.id,
        seq: message.seq,
        type: message.type,
        attempt,
        attempted_at: at,
        status_code: outcome.statusCode,
        error: outcome.error,
        duration_ms: outcome.durationMs,
        next_attempt_at: state.enabled === 0 || outcome.error === null ? null : (state.next_attempt_at ?? null),
        ordinal,
      }))).execute();
      const delivered = attempts.flatMap(({ message, outcome }) => (outcome.error === null && message.queuedId ? [message.queuedId] : []));
      if (current && delivered.length > 0) await trx.deleteFrom('webhook_messages').where('id', 'in', delivered).execute();
      return current;
    });
    if (updated) {
      for (const { message, outcome } of attempts) {
        if (outcome.error === null && message.occurredAtMs !== undefined && message.queuedId === undefined) this.#options.observer?.delivered(Math.max(0, now - message.occurredAtMs) / 1000);
      }
    }
    return updated;
  }

  /** Where the endpoint stands after an attempt that ended at `endedAt`: a retry waits from then. */
  #nextState(row: EndpointRow, message: Message, outcome: AttemptOutcome, attempt: number, endedAt: number): Partial<EndpointRow> {
    if (outcome.error === null) {
      const deliveredSeq = message.queuedId === undefined && message.seq !== null ? message.seq : row.delivered_seq;
      return { delivered_seq: deliveredSeq, head_message_id: null, head_attempt: 0, next_attempt_at: 0 };
    }
    const failing = { head_message_id: message.id, head_attempt: attempt };
    // 410 Gone: the receiver asks for no more messages.
    if (outcome.statusCode === 410) return { ...failing, enabled: 0, disabled_reason: 'gone', updated_at: endedAt };
    const wait = retryWait(this.#options.schedule, attempt, outcome.retryAfterMs);
    if (wait === null) return { ...failing, enabled: 0, disabled_reason: 'retries_exhausted', updated_at: endedAt };
    return { ...failing, next_attempt_at: endedAt + wait };
  }
}
