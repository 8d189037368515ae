// The import document (contract: operator side), declared once: the operator CLI and API validate against it,
// and it documents the format in the OpenAPI description. Every entity is upserted by the caller's
// `ref`; an entry `{ref, deleted: true}` removes it.
import { Type, type Static, type TObject, type TProperties } from 'typebox';
import { orNull, PATTERNS } from '../platform/schemas.ts';
import { ShiftCategory } from './configuration.ts';

const DATE = PATTERNS.date.pattern;
const TIME = PATTERNS.time.pattern;

const Ref = Type.String({ minLength: 1, maxLength: 100, description: 'The caller\'s own key for this entity, unique per kind within the company.' });
const Text = (max = 200) => Type.String({ minLength: 1, maxLength: max });
const LocalDate = (description: string) => Type.String({ pattern: DATE, description });
const Decimal = (maximum: number, description: string) => Type.Number({ minimum: 0, maximum, description: `${description}; at most 2 decimals` });

function entity<P extends TProperties>(properties: P, description: string) {
  return Type.Object({ ...properties, deleted: Type.Optional(Type.Literal(false)) }, { additionalProperties: false, description });
}

/** `{ref, deleted: true}` removes the entity with that ref (nothing happens when there is none). */
export const DeletionEntry = Type.Object({ ref: Ref, deleted: Type.Literal(true) }, { description: 'Removes the entity with this ref; other fields are ignored.' });

export const DepartmentEntry = entity({ ref: Ref, name: Text(), code: Text(50) }, 'A department.');
export const PositionEntry = entity({ ref: Ref, name: Text(), departmentRef: Ref }, 'A position within a department.');
export const ShiftTypeEntry = entity({ ref: Ref, name: Text(), category: ShiftCategory, paid: Type.Boolean() }, 'A kind of shift.');
export const ContractTypeEntry = entity({ ref: Ref, name: Text() }, 'A kind of contract.');

export const UserEntry = entity(
  {
    ref: Ref,
    employeeNumber: Text(50),
    firstName: Text(),
    lastName: Text(),
    email: orNull(Type.String({ maxLength: 254, pattern: PATTERNS.email.pattern })),
    employmentStart: LocalDate('First day of employment (company time zone).'),
    employmentEnd: orNull(LocalDate('Last day of employment; null or absent while open.')),
    departmentRefs: Type.Optional(Type.Array(Ref, { maxItems: 100 })),
    positionRefs: Type.Optional(Type.Array(Ref, { maxItems: 100 })),
    badgeId: orNull(Type.String({ minLength: 1, maxLength: 100, description: 'Unique within the organisation.' })),
    timeclockActive: Type.Optional(Type.Boolean({ description: 'May clock in and out; sets activatedAt when turned on.' })),
  },
  'An employee (company user).',
);

export const Wage = Type.Object(
  {
    amount: Decimal(100_000_000, 'Gross wage per period'),
    currency: Type.Optional(Type.String({ pattern: PATTERNS.currency.pattern, description: 'ISO 4217; defaults to the company currency.' })),
    period: Type.Union([Type.Literal('hour'), Type.Literal('month')]),
  },
  { additionalProperties: false },
);

export const ContractEntry = entity(
  {
    ref: Ref,
    userRef: Ref,
    contractTypeRef: Ref,
    startDate: LocalDate('First day of the contract.'),
    endDate: orNull(LocalDate('Last day of the contract; null or absent while open.')),
    hoursPerWeek: Decimal(168, 'Hours per week'),
    daysPerWeek: Decimal(7, 'Days per week'),
    wage: Wage,
    departmentRef: orNull(Ref),
    positionRef: orNull(Ref),
  },
  'A contract of an employee.',
);

export const ShiftEntry = entity(
  {
    ref: Ref,
    userRef: orNull(Ref),
    date: LocalDate('The day the shift starts (company time zone).'),
    start: Type.String({ pattern: TIME, description: 'Local start time, HH:MM.' }),
    end: Type.String({ pattern: TIME, description: 'Local end time, HH:MM; not after start means the next day.' }),
    breakMinutes: Type.Optional(Type.Integer({ minimum: 0, maximum: 1440 })),
    departmentRef: Ref,
    positionRef: orNull(Ref),
    shiftTypeRef: Ref,
    note: orNull(Type.String({ maxLength: 1000 })),
  },
  'A shift; userRef null or absent makes it an open shift.',
);

const MAX_ITEMS = 500_000;
const section = <T extends TObject>(item: T) => Type.Optional(Type.Array(Type.Union([DeletionEntry, item]), { maxItems: MAX_ITEMS }));

/** Full document schema, for the operator API and the OpenAPI description. */
export const ImportDocument = Type.Object(
  {
    departments: section(DepartmentEntry),
    positions: section(PositionEntry),
    shiftTypes: section(ShiftTypeEntry),
    contractTypes: section(ContractTypeEntry),
    users: section(UserEntry),
    contracts: section(ContractEntry),
    shifts: section(ShiftEntry),
  },
  { additionalProperties: false, description: 'Company data to upsert by ref (contract: operator side). Every section is optional. A rejected document (400 `invalid_import`) lists every problem at its path, however many there are: the answer is streamed as it is produced. An entry with problems of shape still has its well-formed fields checked (refs, dates, repeated refs, badges), so one answer names all of them, by section, entry, then field in the order above (unknown fields last); a document that is not an object, or a section that is not an array, gets its problems of shape only.' },
);
export type ImportDocument = Static<typeof ImportDocument>;

export type DepartmentEntry = Static<typeof DepartmentEntry>;
export type PositionEntry = Static<typeof PositionEntry>;
export type ShiftTypeEntry = Static<typeof ShiftTypeEntry>;
export type ContractTypeEntry = Static<typeof ContractTypeEntry>;
export type UserEntry = Static<typeof UserEntry>;
export type ContractEntry = Static<typeof ContractEntry>;
export type ShiftEntry = Static<typeof ShiftEntry>;

/** The sections in the order they are applied (referenced kinds before the kinds that refer). */
export const SECTIONS = ['departments', 'positions', 'shiftTypes', 'contractTypes', 'users', 'contracts', 'shifts'] as const;
export type Section = (typeof SECTIONS)[number];

/** The entry schema of each section, for validating one entry at a time (precise error paths). */
export const ENTRY_SCHEMAS: Record<Section, TObject> = {
  departments: DepartmentEntry,
  positions: PositionEntry,
  shiftTypes: ShiftTypeEntry,
  contractTypes: ContractTypeEntry,
  users: UserEntry,
  contracts: ContractEntry,
  shifts: ShiftEntry,
};

export const ImportResult = Type.Record(Type.String(), Type.Object({ created: Type.Integer(), updated: Type.Integer(), deleted: Type.Integer() }), {
  description: 'Per entity kind: rows created, rows really changed, rows removed (a user\'s removal counts its contracts and shifts).',
});
