// Checking values against their TypeBox schemas, and the one translation of what a failed check found
// into field errors in words (`{path: "/items/3/amount", message: "must be >= 0"}`). The routes check
// with it (installValidators), and so does any domain function whose callers bypass the routes (the
// `wfs` commands, the import), so a value gets the same answer whichever way it arrives.
import { Ajv, type ErrorObject, type Format, type ValidateFunction } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { FastifyError, FastifyInstance } from 'fastify';
import type { Static, TSchema } from 'typebox';
import { ProblemError, type FieldError } from './errors.ts';
import { FORMATS, formatMessage, patternMessage } from './schemas.ts';

/**
 * The longest text a standard format is checked on; longer text fails it unread. ajv-formats' full
 * `date-time` splits its text on every `t` and space: a 2 MiB string of them (a company API body may
 * be 2 MiB) held the event loop ~65 ms, and with allErrors a maxLength beside it does not stop the
 * check. No date, time, id or address this service takes comes near this.
 */
const FORMAT_TEXT_LIMIT = 8192;

/** A standard format's check, refusing text over FORMAT_TEXT_LIMIT before it runs. */
function shortTextOnly(format: Format): (text: string) => boolean {
  const definition = typeof format === 'object' && !(format instanceof RegExp) ? format.validate : format;
  const check = definition instanceof RegExp ? (text: string) => definition.test(text) : (definition as (text: string) => boolean);
  return (text) => text.length <= FORMAT_TEXT_LIMIT && check(text);
}

/** ajv-formats' int32, float …: checks of numbers, which no text length bounds. */
const numeric = (format: Format): boolean => typeof format === 'object' && !(format instanceof RegExp) && format.type === 'number';

function makeAjv(coerce: boolean): Ajv {
  // Query strings arrive as text and are coerced; JSON bodies are not: a string where a number
  // belongs is a client error, not something to guess at.
  const ajv = new Ajv({ allErrors: true, coerceTypes: coerce ? 'array' : false, useDefaults: true, removeAdditional: false, strict: false });
  for (const [name, format] of Object.entries(fullFormats)) ajv.addFormat(name, numeric(format) ? format : shortTextOnly(format));
  for (const [name, { check }] of Object.entries(FORMATS)) ajv.addFormat(name, check);
  return ajv;
}

const coercing = makeAjv(true);
const strict = makeAjv(false);

const INTEGER_TEXT = /^-?(0|[1-9]\d*)$/;

/**
 * Ajv coerces whatever Number() accepts, so `limit=0x10`, `1e2` or ` 7` would pass as integers. A
 * query parameter declared an integer must be written as one: its raw text is checked, and a
 * miswritten one is reported with the error Ajv gives for a non-integer, beside Ajv's other findings.
 */
function queryValidator(schema: Record<string, unknown>): ValidateFunction {
  const validate = coercing.compile(schema);
  const properties = (schema.properties ?? {}) as Record<string, { type?: unknown }>;
  const integers = Object.keys(properties).filter((name) => properties[name]?.type === 'integer');
  if (integers.length === 0) return validate;
  const checked = ((data: Record<string, unknown> | null) => {
    const miswritten = integers.filter((name) => typeof data?.[name] === 'string' && !INTEGER_TEXT.test(data[name]));
    const valid = validate(data);
    if (miswritten.length === 0) {
      checked.errors = validate.errors;
      return valid;
    }
    // Ajv's other findings still count; for a miswritten integer, ours replaces whatever Ajv made of it.
    const others = (validate.errors ?? []).filter((e) => !miswritten.some((name) => e.instancePath === `/${name}`));
    checked.errors = [
      ...miswritten.map((name): ErrorObject => ({ instancePath: `/${name}`, schemaPath: `#/properties/${name}/type`, keyword: 'type', params: { type: 'integer' }, message: 'must be integer' })),
      ...others,
    ];
    return false;
  }) as ValidateFunction;
  return Object.assign(checked, { schema });
}

export function installValidators(app: FastifyInstance): void {
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? strict.compile(schema) : queryValidator(schema as Record<string, unknown>)));
}

/** What a failed check asks for, in words: the named formats and patterns, and lengths in characters. */
function meaningOf(e: ErrorObject): string {
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'pattern') return patternMessage(params.pattern) ?? e.message ?? 'is invalid';
  if (e.keyword === 'format') return formatMessage(params.format) ?? e.message ?? 'is invalid';
  if (e.keyword === 'maxLength') return `must be at most ${String(params.limit)} characters`;
  if (e.keyword === 'minLength') return `must be at least ${String(params.limit)} characters`;
  if (e.keyword === 'maxItems') return `must hold at most ${String(params.limit)} items`;
  if (e.keyword === 'minItems') return `must hold at least ${String(params.limit)} item${params.limit === 1 ? '' : 's'}`;
  return e.message ?? 'is invalid';
}

function located(context: string, e: ErrorObject): FieldError {
  const base = context === 'body' ? '' : `/${context}`;
  if (e.keyword === 'additionalProperties') {
    const name = String((e.params as { additionalProperty: string }).additionalProperty);
    const where = context === 'querystring' ? 'query parameter' : 'property';
    return { path: `${base}${e.instancePath}/${name}`, message: `unknown ${where} "${name}"` };
  }
  if (e.keyword === 'required') {
    const name = String((e.params as { missingProperty: string }).missingProperty);
    return { path: `${base}${e.instancePath}/${name}`, message: 'is required' };
  }
  return { path: `${base}${e.instancePath}` || '/', message: meaningOf(e) };
}

/**
 * The field errors of a failed check, one per path in the order found: where a value matches no
 * branch of a union (a shift category, a wage period), what each branch asks for is joined with "or";
 * several rules one value breaks, with "and".
 */
function fieldErrors(context: string, errors: ErrorObject[]): FieldError[] {
  const messages = new Map<string, string[]>();
  const unions = new Set<string>();
  for (const e of errors) {
    const { path, message } = located(context, e);
    // The summary of a failed union adds nothing to what its branches said.
    if (e.keyword === 'anyOf') {
      unions.add(path);
      continue;
    }
    const list = messages.get(path) ?? [];
    if (!list.includes(message)) list.push(message);
    messages.set(path, list);
  }
  return [...messages].map(([path, list]) => ({ path, message: list.join(unions.has(path) ? ' or ' : ' and ') }));
}

const PART_NAMES: Record<string, string> = { querystring: 'Query parameter', params: 'Path parameter', headers: 'Header' };

/**
 * One sentence on the first problem: `Query parameter limit must be <= 1000 (and 1 more).`; for the
 * input of a domain function (`input`: a command's options as much as a body), just its path.
 */
function describe(context: string, errors: FieldError[]): string {
  const first = errors[0];
  if (!first) return 'The request is invalid.';
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  const part = PART_NAMES[context];
  let sentence: string;
  if (first.message.startsWith('unknown ')) sentence = `U${first.message.slice(1)}`;
  else if (context === 'input') sentence = `${first.path} ${first.message}`;
  else if (part) sentence = `${part} ${first.path.replace(/^\/[a-z]+\//, '')} ${first.message}`;
  else sentence = first.path === '/' ? `The body ${first.message}` : `Body field ${first.path} ${first.message}`;
  return `${sentence}${more}.`;
}

/** 400 `validation_failed` listing `errors` (fields of the wrong type or format). */
export function validationFailed(context: string, errors: FieldError[]): ProblemError {
  return new ProblemError({ code: 'validation_failed', detail: describe(context, errors), errors });
}

/** The field errors of a route's failed schema validation, at the paths clients see (`/items/3/amount`). */
export function validationErrors(error: FastifyError): FieldError[] {
  return fieldErrors(error.validationContext ?? 'body', (error.validation ?? []) as ErrorObject[]);
}

const compiled = new WeakMap<TSchema, ValidateFunction>();

/** `schema` as a body's check (no coercion), compiled once. */
export function compiledCheck(schema: TSchema): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) compiled.set(schema, (validate = strict.compile(schema)));
  return validate;
}

const rebased = (errors: FieldError[], base: string): FieldError[] => errors.map((e) => ({ path: e.path === '/' ? base || '/' : `${base}${e.path}`, message: e.message }));

/** What is wrong with `value` as `schema` describes it, each error at `base` + its path (none: it fits). */
export function schemaErrors(schema: TSchema, value: unknown, base = ''): FieldError[] {
  const validate = compiledCheck(schema);
  if (validate(value)) return [];
  return rebased(fieldErrors('body', validate.errors ?? []), base);
}

/** Keywords whose findings depend on the schema alone, never on the value (their params come from the schema). */
const SCHEMA_FIXED = new Set(['type', 'anyOf', 'oneOf', 'enum', 'const', 'pattern', 'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems']);

/** What makes a finding's words: where in the schema and the value, and any params the value set (an unknown property's name). */
function findingKey(e: ErrorObject): string {
  if (SCHEMA_FIXED.has(e.keyword)) return `${e.schemaPath} ${e.instancePath}`;
  const params = e.params as Record<string, unknown>;
  if (e.keyword === 'additionalProperties') return `${e.schemaPath} ${e.instancePath} ${String(params.additionalProperty)}`;
  if (e.keyword === 'required') return `${e.schemaPath} ${e.instancePath} ${String(params.missingProperty)}`;
  return `${e.schemaPath} ${e.instancePath} ${JSON.stringify(params)}`;
}

/**
 * `schemaErrors` for the many values of one batch (its items), one at a time. Thousands of items
 * tend to be wrong in the same few ways, so each distinct set of findings is put into words once:
 * 5,000 items of the wrong type cost ~30,000 translations before. Make one per batch (the words it
 * keeps go with it).
 */
export function schemaChecker(schema: TSchema): (value: unknown, base: string) => FieldError[] {
  const validate = compiledCheck(schema);
  const worded = new Map<string, FieldError[]>();
  return (value, base) => {
    if (validate(value)) return [];
    const findings = validate.errors ?? [];
    const key = findings.map(findingKey).join('\n');
    let relative = worded.get(key);
    if (relative === undefined) worded.set(key, (relative = fieldErrors('body', findings)));
    return rebased(relative, base);
  };
}

/** A domain function's refusal of its input: 400 `validation_failed` listing `errors`, when there are any. */
export function rejectIf(errors: FieldError[]): void {
  if (errors.length > 0) throw validationFailed('input', errors);
}

/**
 * `value` as `schema` types it, or 400 `validation_failed` with the errors a route finds in a body
 * that does not fit: for the callers that do not come through a route (the `wfs` commands, the console).
 */
export function checkedInput<S extends TSchema>(schema: S, value: unknown): Static<S> {
  rejectIf(schemaErrors(schema, value));
  return value as Static<S>;
}
