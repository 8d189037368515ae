// Turns a read import document plus the company's current rows into the exact rows to write:
// resolves every ref (to the document or to this company's rows), checks dates, times and badges,
// and diffs against what is stored so unchanged rows are left alone. Every problem is collected, also
// those of an entry with problems of shape, wherever its fields are well-formed (it is not written).
import type { FieldError } from '../platform/errors.ts';
import { addDays, isCalendarDate } from '../platform/period.ts';
import { newId } from '../platform/ids.ts';
import type { CompanyTables } from './tables.ts';
import { fieldsFit, type Entry, type EntryTypes, type ReadDocument } from './import-document.ts';
import { SECTIONS, type Section } from './import-schema.ts';
import { localInstant } from '../platform/local-time.ts';
import { eachPaced, filterPaced, mapPaced, type Pace } from '../platform/cooperative.ts';

export const TABLE_OF = {
  departments: 'departments',
  positions: 'positions',
  shiftTypes: 'shift_types',
  contractTypes: 'contract_types',
  users: 'employees',
  contracts: 'contracts',
  shifts: 'shifts',
} as const satisfies Record<Section, keyof CompanyTables>;

const ID_PREFIX: Record<Section, string> = { departments: 'dep', positions: 'pos', shiftTypes: 'sty', contractTypes: 'cty', users: 'emp', contracts: 'con', shifts: 'shf' };
const KIND: Record<Section, string> = { departments: 'department', positions: 'position', shiftTypes: 'shift type', contractTypes: 'contract type', users: 'user', contracts: 'contract', shifts: 'shift' };

export type RowOf<S extends Section> = CompanyTables[(typeof TABLE_OF)[S]];
export type CompanyRows = { [S in Section]: RowOf<S>[] };

export interface SectionPlan<S extends Section> {
  /** New and changed rows, complete, to upsert by (company_id, ref). */
  upserts: RowOf<S>[];
  created: number;
  updated: number;
  deleteIds: string[];
}
export type ImportPlan = { [S in Section]: SectionPlan<S> } & {
  /** Employees whose badge changes: cleared first so badges can move between people in one import. */
  badgeMoves: string[];
};

export interface PlanContext {
  companyId: string;
  organisationId: string;
  timezone: string;
  currency: string;
  now: number;
  /** Badge ids of the document already held by employees of the organisation's other companies. */
  badgesElsewhere: Set<string>;
}

type RefState = { id: string; state: 'kept' | 'upserted' } | { id: string | null; state: 'deleted' | 'malformed' };

/** Where each ref of one section stands after the import: kept as stored, upserted, or removed. */
class RefTable {
  readonly byRef = new Map<string, RefState>();
  readonly stored = new Map<string, { id: string; ref: string }>();
  readonly deletionPath = new Map<string, string>();

  readonly section: Section;

  constructor(section: Section) {
    this.section = section;
  }

  /** The table of `section` with its stored rows, all kept until the document says otherwise. */
  static async of(section: Section, rows: ReadonlyArray<{ id: string; ref: string }>, pace: Pace): Promise<RefTable> {
    const table = new RefTable(section);
    await eachPaced(rows, pace, (row) => {
      table.stored.set(row.ref, row);
      table.byRef.set(row.ref, { id: row.id, state: 'kept' });
    });
    return table;
  }

  isKept(ref: string): boolean {
    return this.byRef.get(ref)?.state === 'kept';
  }

  upsert(ref: string): void {
    this.byRef.set(ref, { id: this.stored.get(ref)?.id ?? newId(ID_PREFIX[this.section]), state: 'upserted' });
  }

  /** An entry already reported as malformed: references to it raise no second problem. */
  malformed(ref: string): void {
    this.byRef.set(ref, { id: null, state: 'malformed' });
  }

  delete(ref: string, path: string): void {
    const id = this.stored.get(ref)?.id ?? null;
    this.byRef.set(ref, { id, state: 'deleted' });
    if (id) this.deletionPath.set(id, path);
  }

  async deletedIds(pace: Pace): Promise<Set<string>> {
    const ids = new Set<string>();
    await eachPaced(this.byRef.values(), pace, (s) => s.state === 'deleted' && s.id && ids.add(s.id));
    return ids;
  }

  resolve(ref: string, path: string, errors: FieldError[]): string {
    const found = this.byRef.get(ref);
    if (found?.state === 'deleted') errors.push({ path, message: `refers to the ${KIND[this.section]} "${ref}", which this document removes` });
    else if (!found) errors.push({ path, message: `refers to no ${KIND[this.section]}: "${ref}" is neither in this document nor stored for this company` });
    return found?.id ?? '';
  }
}

type Refs = { [S in Section]: RefTable };

function hasTwoDecimals(value: number): boolean {
  return Math.abs(value * 100 - Math.round(value * 100)) < 1e-6;
}

/**
 * Where one entry's problems go: its path, the list, and which of its fields are well-formed enough
 * to check (all of a well-formed entry's). A check looks only at fields that fit; the row built from
 * an entry with problems of shape is never written.
 */
interface Site {
  path: string;
  errors: FieldError[];
  fits: (...fields: string[]) => boolean;
}

function problem(site: Site, field: string, message: string): void {
  site.errors.push({ path: `${site.path}/${field}`, message });
}

function checkDate(site: Site, field: string, value: string | null | undefined): void {
  if (value && site.fits(field) && !isCalendarDate(value)) problem(site, field, 'is not a calendar date');
}

function checkOrder(site: Site, startField: string, endField: string, start: string, end: string | null | undefined): void {
  if (end && site.fits(startField, endField) && isCalendarDate(start) && isCalendarDate(end) && end < start) problem(site, endField, `is before ${startField}`);
}

function checkCents(site: Site, field: string, value: number): number {
  if (site.fits(field) && !hasTwoDecimals(value)) problem(site, field, 'must have at most 2 decimals');
  return Math.round(value * 100);
}

/** The id `ref` (in `field`) stands for; '' when it stands for none (a problem) or is not well-formed. */
const resolved = (table: RefTable, site: Site, field: string, ref: string): string => (site.fits(field) ? table.resolve(ref, `${site.path}/${field}`, site.errors) : '');

const optionalRef = (table: RefTable, site: Site, field: string, ref: string | null | undefined): string | null =>
  ref === null || ref === undefined ? null : resolved(table, site, field, ref);

type Fields<S extends Section> = Omit<RowOf<S>, 'id' | 'company_id' | 'ref' | 'updated_at'>;
type Builder<S extends Section> = (entry: EntryTypes[S], site: Site, refs: Refs, ctx: PlanContext) => Fields<S>;

const builders: { [S in Exclude<Section, 'users'>]: Builder<S> } = {
  departments: (e) => ({ name: e.name, code: e.code }),
  positions: (e, site, refs) => ({ name: e.name, department_id: resolved(refs.departments, site, 'departmentRef', e.departmentRef) }),
  shiftTypes: (e) => ({ name: e.name, category: e.category, paid: e.paid ? 1 : 0 }),
  contractTypes: (e) => ({ name: e.name }),
  contracts: (e, site, refs, ctx) => {
    checkDate(site, 'startDate', e.startDate);
    checkDate(site, 'endDate', e.endDate);
    checkOrder(site, 'startDate', 'endDate', e.startDate, e.endDate);
    // A wage that is no object has nothing to read: the entry is then malformed, its row not written.
    const wage = site.fits('wage') ? e.wage : undefined;
    return {
      employee_id: resolved(refs.users, site, 'userRef', e.userRef),
      contract_type_id: resolved(refs.contractTypes, site, 'contractTypeRef', e.contractTypeRef),
      start_date: e.startDate,
      end_date: e.endDate ?? null,
      hours_per_week_centi: checkCents(site, 'hoursPerWeek', e.hoursPerWeek),
      days_per_week_centi: checkCents(site, 'daysPerWeek', e.daysPerWeek),
      wage_minor: wage ? checkCents(site, 'wage/amount', wage.amount) : 0,
      wage_currency: wage?.currency ?? ctx.currency,
      wage_period: wage?.period ?? 'hour',
      department_id: optionalRef(refs.departments, site, 'departmentRef', e.departmentRef),
      position_id: optionalRef(refs.positions, site, 'positionRef', e.positionRef),
    };
  },
  shifts: (e, site, refs, ctx) => {
    const times = shiftTimes(e, site, ctx.timezone);
    return {
      date: e.date,
      starts_at: times.startsAt,
      ends_at: times.endsAt,
      break_minutes: e.breakMinutes ?? 0,
      employee_id: optionalRef(refs.users, site, 'userRef', e.userRef),
      department_id: resolved(refs.departments, site, 'departmentRef', e.departmentRef),
      position_id: optionalRef(refs.positions, site, 'positionRef', e.positionRef),
      shift_type_id: resolved(refs.shiftTypes, site, 'shiftTypeRef', e.shiftTypeRef),
      note: e.note ?? null,
    };
  },
};

const NO_TIMES = { startsAt: 0, endsAt: 0 };

/** Local date + HH:MM → instants; an end not after the start is on the next day. */
function shiftTimes(e: EntryTypes['shifts'], site: Site, zone: string): { startsAt: number; endsAt: number } {
  if (!site.fits('date')) return NO_TIMES;
  if (!isCalendarDate(e.date)) {
    problem(site, 'date', 'is not a calendar date');
    return NO_TIMES;
  }
  if (!site.fits('start', 'end')) return NO_TIMES;
  const endDate = e.end <= e.start ? addDays(e.date, 1) : e.date;
  const startsAt = localInstant(e.date, e.start, zone);
  const endsAt = localInstant(endDate, e.end, zone);
  const gap = (day: string, time: string) => `${time} does not exist on ${day} in ${zone} (the clocks skip it)`;
  if (startsAt === null) problem(site, 'start', gap(e.date, e.start));
  if (endsAt === null) problem(site, 'end', gap(endDate, e.end));
  if (startsAt !== null && endsAt !== null && site.fits('breakMinutes') && (e.breakMinutes ?? 0) * 60_000 >= endsAt - startsAt) {
    problem(site, 'breakMinutes', 'must be shorter than the shift');
  }
  return { startsAt: startsAt ?? 0, endsAt: endsAt ?? 0 };
}

function uniqueResolved(table: RefTable, site: Site, field: string, refs: string[] | undefined): string {
  if (!site.fits(field)) return '[]';
  const ids = (refs ?? []).map((ref, index) => table.resolve(ref, `${site.path}/${field}/${index}`, site.errors));
  return JSON.stringify([...new Set(ids)]);
}

function buildUser(e: EntryTypes['users'], site: Site, refs: Refs, ctx: PlanContext, stored: RowOf<'users'> | undefined): Fields<'users'> {
  checkDate(site, 'employmentStart', e.employmentStart);
  checkDate(site, 'employmentEnd', e.employmentEnd);
  checkOrder(site, 'employmentStart', 'employmentEnd', e.employmentStart, e.employmentEnd);
  const active = e.timeclockActive === true;
  return {
    organisation_id: ctx.organisationId,
    employee_number: e.employeeNumber,
    first_name: e.firstName,
    last_name: e.lastName,
    email: e.email ?? null,
    employment_start: e.employmentStart,
    employment_end: e.employmentEnd ?? null,
    department_ids: uniqueResolved(refs.departments, site, 'departmentRefs', e.departmentRefs),
    position_ids: uniqueResolved(refs.positions, site, 'positionRefs', e.positionRefs),
    badge_id: e.badgeId ?? null,
    timeclock_active: active ? 1 : 0,
    // Activation time is when the timeclock was turned on; it survives unrelated edits.
    activated_at: active ? (stored?.timeclock_active === 1 ? stored.activated_at : ctx.now) : null,
  };
}

function sameFields(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  return Object.keys(a).every((key) => a[key] === b[key]);
}

async function planSection<S extends Section>(section: S, doc: ReadDocument, stored: RowOf<S>[], refs: Refs, ctx: PlanContext, errors: FieldError[], pace: Pace): Promise<SectionPlan<S>> {
  const table = refs[section];
  const storedByRef = new Map<string, RowOf<S>>();
  await eachPaced(stored, pace, (row) => storedByRef.set(row.ref, row));
  const plan: SectionPlan<S> = { upserts: [], created: 0, updated: 0, deleteIds: [] };
  await eachPaced(doc[section].entries, pace, ({ path, entry, wellFormed, brokenFields }) => {
    const before = storedByRef.get(entry.ref);
    const site = { path, errors, fits: fieldsFit(brokenFields) };
    const fields = section === 'users'
      ? buildUser(entry as EntryTypes['users'], site, refs, ctx, before as RowOf<'users'> | undefined)
      : (builders as unknown as Record<Section, Builder<S>>)[section](entry, site, refs, ctx);
    if (!wellFormed || (before && sameFields(fields, before as unknown as Record<string, unknown>))) return;
    const id = (table.byRef.get(entry.ref) as { id: string }).id;
    plan.upserts.push({ ...fields, id, company_id: ctx.companyId, ref: entry.ref, updated_at: ctx.now } as RowOf<S>);
    if (before) plan.updated += 1;
    else plan.created += 1;
  });
  plan.deleteIds = [...(await table.deletedIds(pace))];
  return plan;
}

/** Removing a user removes its stored contracts and shifts that the document does not keep. */
async function cascadeUserRemoval(refs: Refs, rows: CompanyRows, pace: Pace): Promise<void> {
  const removedUsers = await refs.users.deletedIds(pace);
  if (removedUsers.size === 0) return;
  const userPath = (id: string) => refs.users.deletionPath.get(id) ?? '';
  await eachPaced(rows.contracts, pace, (row) => removedUsers.has(row.employee_id) && refs.contracts.isKept(row.ref) && refs.contracts.delete(row.ref, userPath(row.employee_id)));
  await eachPaced(rows.shifts, pace, (row) => row.employee_id && removedUsers.has(row.employee_id) && refs.shifts.isKept(row.ref) && refs.shifts.delete(row.ref, userPath(row.employee_id)));
}

/** A removed entity must not stay in use by a stored row this document leaves untouched. */
async function checkRemovalsUnused(refs: Refs, rows: CompanyRows, errors: FieldError[], pace: Pace): Promise<void> {
  // Per removed entity's path: the first three stored rows still using it, and how many do.
  const users = new Map<string, { first: string[]; total: number }>();
  const use = (table: RefTable, id: string | null, by: string) => {
    const path = id ? table.deletionPath.get(id) : undefined;
    if (!path) return;
    const found = users.get(path) ?? { first: [], total: 0 };
    if (found.first.length < 3) found.first.push(by);
    found.total += 1;
    users.set(path, found);
  };
  const kept = <S extends Section>(section: S) => filterPaced(rows[section] as Array<{ ref: string }>, pace, (row) => refs[section].isKept(row.ref)) as Promise<RowOf<S>[]>;
  await eachPaced(await kept('positions'), pace, (p) => use(refs.departments, p.department_id, `position "${p.ref}"`));
  await eachPaced(await kept('users'), pace, (u) => {
    for (const id of JSON.parse(u.department_ids) as string[]) use(refs.departments, id, `user "${u.ref}"`);
    for (const id of JSON.parse(u.position_ids) as string[]) use(refs.positions, id, `user "${u.ref}"`);
  });
  await eachPaced(await kept('contracts'), pace, (c) => {
    use(refs.contractTypes, c.contract_type_id, `contract "${c.ref}"`);
    use(refs.departments, c.department_id, `contract "${c.ref}"`);
    use(refs.positions, c.position_id, `contract "${c.ref}"`);
  });
  await eachPaced(await kept('shifts'), pace, (s) => {
    use(refs.shiftTypes, s.shift_type_id, `shift "${s.ref}"`);
    use(refs.departments, s.department_id, `shift "${s.ref}"`);
    use(refs.positions, s.position_id, `shift "${s.ref}"`);
  });
  for (const [path, { first, total }] of users) {
    const more = total > 3 ? ` and ${total - 3} more` : '';
    errors.push({ path, message: `is still used by ${first.join(', ')}${more}: remove or change them in the same document` });
  }
}

/** A badge id is unique within the organisation; moving one between people in one import is fine. */
async function checkBadges(plan: ImportPlan, doc: ReadDocument, refs: Refs, rows: CompanyRows, ctx: PlanContext, errors: FieldError[], pace: Pace): Promise<void> {
  const holder = new Map<string, string>();
  await eachPaced(rows.users, pace, (row) => row.badge_id && refs.users.isKept(row.ref) && holder.set(row.badge_id, `user "${row.ref}"`));
  await eachPaced(doc.users.entries, pace, ({ path, entry, brokenFields }) => {
    if (!entry.badgeId || !fieldsFit(brokenFields)('badgeId')) return;
    const other = holder.get(entry.badgeId) ?? (ctx.badgesElsewhere.has(entry.badgeId) ? 'an employee of another company of this organisation' : undefined);
    if (other) errors.push({ path: `${path}/badgeId`, message: `is already the badge of ${other}` });
    else holder.set(entry.badgeId, path);
  });
  const storedBadge = new Map<string, string | null>();
  await eachPaced(rows.users, pace, (row) => storedBadge.set(row.id, row.badge_id));
  plan.badgeMoves = await mapPaced(await filterPaced(plan.users.upserts, pace, (row) => !!storedBadge.get(row.id) && storedBadge.get(row.id) !== row.badge_id), pace, (row) => row.id);
}

async function checkOpenAbsences(doc: ReadDocument, rows: CompanyRows, errors: FieldError[], pace: Pace): Promise<void> {
  const categoryByRef = new Map(rows.shiftTypes.map((row) => [row.ref, row.category]));
  for (const { entry, brokenFields } of doc.shiftTypes.entries) if (fieldsFit(brokenFields)('ref', 'category')) categoryByRef.set(entry.ref, entry.category);
  await eachPaced(doc.shifts.entries, pace, ({ path, entry, brokenFields }) => {
    if (!fieldsFit(brokenFields)('userRef', 'shiftTypeRef')) return;
    if (!entry.userRef && categoryByRef.get(entry.shiftTypeRef) === 'absence') errors.push({ path: `${path}/userRef`, message: 'is required: an absence belongs to a user' });
  });
}

/** The rows to write for `doc` over the company's stored `rows`; every problem found goes to `errors`. Paced by `pace`. */
export async function planImport(doc: ReadDocument, rows: CompanyRows, ctx: PlanContext, errors: FieldError[], pace: Pace): Promise<ImportPlan> {
  const refs = {} as Refs;
  for (const section of SECTIONS) refs[section] = await RefTable.of(section, rows[section], pace);
  for (const section of SECTIONS) {
    const table = refs[section];
    await eachPaced(doc[section].entries as Entry<{ ref: string }>[], pace, ({ entry, wellFormed }) => wellFormed && table.upsert(entry.ref));
    await eachPaced(doc[section].deletions, pace, ({ path, entry }) => table.delete(entry.ref, path));
    await eachPaced(doc[section].malformed, pace, (ref) => table.malformed(ref));
  }
  await cascadeUserRemoval(refs, rows, pace);
  const plan = { badgeMoves: [] } as unknown as ImportPlan;
  for (const section of SECTIONS) (plan as Record<Section, unknown>)[section] = await planSection(section, doc, rows[section], refs, ctx, errors, pace);
  await checkRemovalsUnused(refs, rows, errors, pace);
  await checkBadges(plan, doc, refs, rows, ctx, errors, pace);
  await checkOpenAbsences(doc, rows, errors, pace);
  return plan;
}
