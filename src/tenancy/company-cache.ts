// The company record every company request starts from (time zone, data version), kept per instance
// for a few milliseconds: under load the read is shared by every request in that window instead of
// costing each one a database round (on SQLite, a read transaction; on PostgreSQL, a network trip).
//
// It never shows a finished import late. An entry is used only while younger than
// COMPANY_RECORD_MAX_AGE_MS, its age counted from before its read was sent; importCompanyData,
// after committing a change, waits IMPORT_SETTLE_MS (longer) before it returns. So whatever follows
// an import's return — the CLI exiting, the operator API answering, a test's next line — comes after
// every instance's entries from before the commit have expired: the server sees the change at once
// (contract: operator side), on every instance. Ages are read on the context's clock (its elapsed
// time), so a test moves it instead of waiting; the import's settle wait stays real, for it reaches
// other processes, which share no clock with this one.
import type { Clock } from '../platform/clock.ts';
import { findCompany, type CompanyRecord } from './companies.ts';
import type { Db } from '../platform/db/database.ts';

export const COMPANY_RECORD_MAX_AGE_MS = 20;
/** Twice the age limit plus a margin: Node timers may fire up to a loop turn early. */
export const IMPORT_SETTLE_MS = 2 * COMPANY_RECORD_MAX_AGE_MS + 10;

const MAX_ENTRIES = 10_000;

interface Read<T> {
  value: T;
  /** The clock's elapsed() just before the read was sent. */
  readAt: number;
}

export class CompanyCache {
  readonly #db: Db;
  readonly #clock: Clock;
  readonly #entries = new Map<string, Read<CompanyRecord>>();
  readonly #reading = new Map<string, Read<Promise<CompanyRecord>>>();

  constructor(db: Db, clock: Clock) {
    this.#db = db;
    this.#clock = clock;
  }

  /**
   * The company's record: from an entry young enough (synchronously: a cached read's answer needs no
   * promise), or from a read sent recently enough (requests arriving together share one), or from a
   * new read.
   */
  find(companyId: string): CompanyRecord | Promise<CompanyRecord> {
    const record = this.fresh(companyId);
    if (record) return record;
    const reading = this.#reading.get(companyId);
    return reading && this.#fresh(reading) ? reading.value : this.#read(companyId);
  }

  /** The company's record from an entry young enough, or undefined (no read is started). */
  fresh(companyId: string): CompanyRecord | undefined {
    const entry = this.#entries.get(companyId);
    return entry && this.#fresh(entry) ? entry.value : undefined;
  }

  #fresh(read: Read<unknown>): boolean {
    return this.#clock.elapsed() - read.readAt < COMPANY_RECORD_MAX_AGE_MS;
  }

  async #read(companyId: string): Promise<CompanyRecord> {
    const readAt = this.#clock.elapsed();
    const value = findCompany(this.#db, companyId);
    this.#reading.set(companyId, { value, readAt });
    try {
      const record = await value;
      const known = this.#entries.get(companyId);
      if (!known || known.readAt < readAt) {
        if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear();
        this.#entries.set(companyId, { value: record, readAt });
      }
      return record;
    } finally {
      if (this.#reading.get(companyId)?.value === value) this.#reading.delete(companyId);
    }
  }
}
