// Wakes whoever waits for a company's changes (long-polling delta requests, the webhooks dispatcher)
// once a write has committed. Writers call announceChanges(db, companyId) after their commit: the
// listeners of this instance run at once, and on PostgreSQL the company ids go to every other
// instance through NOTIFY on one channel (sent in small groups, so a burst of writes costs one
// statement), where a LISTEN connection fires their listeners. A notification is only a hint to
// read again: readers never trust it for what is readable, and poll slowly should it be lost.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { sql } from 'kysely';
import type { Db } from '../platform/db/database.ts';

export type ChangeListener = (companyId: string) => void;

const CHANNEL = 'wfs_company_changes';
/** How long announcements gather before one NOTIFY carries them. */
const PUBLISH_DELAY_MS = 20;
/** A NOTIFY payload must stay under 8000 bytes. */
const MAX_PAYLOAD = 7000;
const RECONNECT_MS = 1000;

export class ChangeNotifier {
  readonly #db: Db;
  readonly #databaseUrl: string | undefined;
  readonly #instance = randomUUID();
  readonly #byCompany = new Map<string, Set<ChangeListener>>();
  readonly #everyCompany = new Set<ChangeListener>();
  #outbox = new Set<string>();
  #publishing: NodeJS.Timeout | undefined;
  #listener: pg.Client | undefined;
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
    this.#publishing ??= setTimeout(() => void this.#publish(), PUBLISH_DELAY_MS);
  }

  /** Starts listening to the other instances' announcements (PostgreSQL only; a no-op otherwise). */
  async listen(onError: (error: unknown) => void): Promise<void> {
    if (this.#databaseUrl === undefined || this.#closed) return;
    const client = new pg.Client({ connectionString: this.#databaseUrl, keepAlive: true });
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
    clearTimeout(this.#publishing);
    await this.#publish();
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

  async #publish(): Promise<void> {
    this.#publishing = undefined;
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
    for (const payload of payloads) {
      // Lost when the database is unreachable: waiting readers still poll.
      await sql`select pg_notify(${CHANNEL}, ${payload})`.execute(this.#db).catch(() => {});
    }
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
