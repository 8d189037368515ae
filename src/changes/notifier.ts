// Wakes whoever waits for a company's changes (long-polling delta requests, the webhooks dispatcher)
// once a write has committed. Writers call announceChanges(db, companyId) after their commit: the
// listeners of this instance run at once, and on PostgreSQL the company ids go to every other
// instance through NOTIFY on one channel (sent in small groups, so a burst of writes costs one
// statement), where a LISTEN connection fires their listeners. A notification is only a hint to
// read again: readers never trust it for what is readable, and poll slowly should it be lost.
// NOTIFY goes out on the LISTEN connection itself, one statement at a time, so announcements never
// take a connection from the pool that requests need (during a database outage they would hold them).
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import type { Db } from '../platform/db/database.ts';

export type ChangeListener = (companyId: string) => void;

const CHANNEL = 'wfs_company_changes';
/** How long announcements gather before one NOTIFY carries them. */
export const PUBLISH_DELAY_MS = 20;
/** A NOTIFY payload must stay under 8000 bytes. */
const MAX_PAYLOAD = 7000;
const RECONNECT_MS = 1000;
/** The LISTEN connection's own limits: a cut network must not hold a NOTIFY (or the reconnect) for long. */
const CONNECTION_TIMEOUT_MS = 5000;
const QUERY_TIMEOUT_MS = 3000;

export class ChangeNotifier {
  readonly #db: Db;
  readonly #databaseUrl: string | undefined;
  readonly #instance = randomUUID();
  readonly #byCompany = new Map<string, Set<ChangeListener>>();
  readonly #everyCompany = new Set<ChangeListener>();
  #outbox = new Set<string>();
  #publishTimer: NodeJS.Timeout | undefined;
  #publishing = false;
  #listener: pg.Client | undefined;
  /** listen() was called: NOTIFY only on the LISTEN connection, never through the pool. */
  #listening = false;
  #closed = false;

  /** `databaseUrl` of a PostgreSQL database makes announcements cross instances; undefined keeps them local. */
  constructor(db: Db, databaseUrl?: string) {
    this.#db = db;
    this.#databaseUrl = databaseUrl;
  }

  /** Calls `listener` after each commit of a change of `companyId`; returns the unsubscribe function. */
  subscribe(companyId: string, listener: ChangeListener): () => void {
    let listeners = this.#byCompany.get(companyId);
    if (!listeners) this.#byCompany.set(companyId, (listeners = new Set()));
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0) this.#byCompany.delete(companyId);
    };
  }

  /** Calls `listener` with the company id after each commit of a change of any company. */
  subscribeAll(listener: ChangeListener): () => void {
    this.#everyCompany.add(listener);
    return () => this.#everyCompany.delete(listener);
  }

  /** A write of `companyId`'s changes has committed on this instance. */
  announce(companyId: string): void {
    this.#fire(companyId);
    if (this.#databaseUrl === undefined || this.#closed) return;
    this.#outbox.add(companyId);
    this.#schedulePublish();
  }

  #schedulePublish(): void {
    if (this.#publishTimer !== undefined || this.#publishing || this.#outbox.size === 0) return;
    this.#publishTimer = setTimeout(() => void this.#publish(), PUBLISH_DELAY_MS);
  }

  /** Starts listening to the other instances' announcements (PostgreSQL only; a no-op otherwise). */
  async listen(onError: (error: unknown) => void): Promise<void> {
    if (this.#databaseUrl === undefined || this.#closed) return;
    this.#listening = true;
    const client = new pg.Client({ connectionString: this.#databaseUrl, keepAlive: true, connectionTimeoutMillis: CONNECTION_TIMEOUT_MS, query_timeout: QUERY_TIMEOUT_MS });
    const retry = (error: unknown) => {
      if (this.#listener !== client || this.#closed) return;
      this.#listener = undefined;
      onError(error);
      client.end().catch(() => {});
      setTimeout(() => void this.listen(onError), RECONNECT_MS).unref();
    };
    this.#listener = client;
    client.on('error', retry);
    client.on('end', () => retry(new Error('change notification connection closed')));
    client.on('notification', (message) => this.#received(message.payload));
    try {
      await client.connect();
      await client.query(`listen ${CHANNEL}`);
    } catch (error) {
      retry(error);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#publishTimer);
    this.#publishTimer = undefined;
    if (!this.#publishing) await this.#publish();
    const client = this.#listener;
    this.#listener = undefined;
    await client?.end().catch(() => {});
  }

  #fire(companyId: string): void {
    for (const listener of this.#byCompany.get(companyId) ?? []) listener(companyId);
    for (const listener of this.#everyCompany) listener(companyId);
  }

  #received(payload: string | undefined): void {
    let message: { from?: string; companies?: unknown };
    try {
      message = JSON.parse(payload ?? '') as typeof message;
    } catch {
      return;
    }
    if (message.from === this.#instance || !Array.isArray(message.companies)) return;
    for (const companyId of message.companies) if (typeof companyId === 'string') this.#fire(companyId);
  }

  /** Sends the gathered company ids; one NOTIFY statement in flight at a time. */
  async #publish(): Promise<void> {
    this.#publishTimer = undefined;
    this.#publishing = true;
    try {
      for (const payload of this.#payloads()) {
        // Lost when the database is unreachable: waiting readers still poll.
        await this.#notify(payload).catch(() => {});
      }
    } finally {
      this.#publishing = false;
    }
    if (!this.#closed) this.#schedulePublish();
  }

  #payloads(): string[] {
    const companies = [...this.#outbox];
    this.#outbox = new Set();
    const payloads: string[] = [];
    let group: string[] = [];
    for (const companyId of companies) {
      group.push(companyId);
      if (JSON.stringify(group).length > MAX_PAYLOAD) {
        payloads.push(this.#payload(group.slice(0, -1)));
        group = [companyId];
      }
    }
    if (group.length > 0) payloads.push(this.#payload(group));
    return payloads;
  }

  /**
   * On the LISTEN connection in a server (dropped while it reconnects); through the pool in a CLI
   * command, which has no LISTEN connection and runs no requests.
   */
  async #notify(payload: string): Promise<void> {
    if (this.#listener) await this.#listener.query('select pg_notify($1, $2)', [CHANNEL, payload]);
    else if (!this.#listening) await sql`select pg_notify(${CHANNEL}, ${payload})`.execute(this.#db);
  }

  #payload(companies: string[]): string {
    return JSON.stringify({ from: this.#instance, companies });
  }
}

const notifiers = new WeakMap<Db, ChangeNotifier>();

/** Makes `notifier` the one announceChanges reaches for writes through `db`. */
export function useNotifier(db: Db, notifier: ChangeNotifier): void {
  notifiers.set(db, notifier);
}

/** Tells the waiting readers that changes of `companyId` have committed. Call it after the commit. */
export function announceChanges(db: Db, companyId: string): void {
  notifiers.get(db)?.announce(companyId);
}
