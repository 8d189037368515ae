// Webhook endpoints of a company: create, read, change, delete, rotate the secret. Every query names
// the company, so another company's endpoint id is simply not found. The secret is sealed at rest and
// shown only when it is made (creation, rotation).
import type { Selectable } from 'kysely';
import type { Db } from '../platform/db/database.ts';
import { newId } from '../platform/ids.ts';
import { ProblemError, badRequest, notFound } from '../platform/errors.ts';
import { resealStale, type SecretBox } from '../platform/sealed-secrets.ts';
import type { Listing } from '../platform/paged-collection.ts';
import { formatInstant } from '../platform/local-time.ts';
import { DestinationRefused } from '../platform/outbound-destination.ts';
import { checkDestination, InvalidWebhookUrl, type DestinationPolicy } from './destination.ts';
import { newEndpointSecret } from './signing.ts';
import type { Endpoint, EndpointChanges, EndpointInput } from './schemas.ts';
import type { WebhookEndpointsTable } from './tables.ts';

export type EndpointRow = Selectable<WebhookEndpointsTable>;

/** How long a secret replaced by a rotation keeps signing beside the new one (CONTRACT §7). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;

/**
 * Replaced secrets still signing, at most: with the current one, 5 signatures a message. A rotation
 * beyond it ends the oldest overlap early rather than being refused, so that a leaked secret can
 * always be replaced at once (docs/webhooks.md).
 */
export const MAX_REPLACED_SECRETS = 4;

/** A replaced secret and when it stops signing. */
interface ReplacedSecret {
  secret: string;
  until: number;
}

type SecretColumns = Pick<EndpointRow, 'id' | 'secret_sealed' | 'previous_secret_sealed' | 'previous_secret_until' | 'earlier_secrets_sealed'>;

/** What endpoint changes need besides the database: the secret box, the destination rules, "now", and where a refusal's detail goes. */
export interface EndpointEnvironment {
  box: SecretBox;
  policy: DestinationPolicy;
  now: number;
  log: { info(details: object, message: string): void };
}

export function secretContext(endpointId: string): string {
  return `webhook_endpoint:${endpointId}`;
}

/** Another context than a single secret's, so neither sealed value opens in the other's column. */
export function earlierSecretsContext(endpointId: string): string {
  return `${secretContext(endpointId)}:earlier`;
}

export function presentEndpoint(row: EndpointRow, timezone: string): Endpoint {
  return {
    id: row.id,
    url: row.url,
    types: row.types === null ? null : (JSON.parse(row.types) as string[]),
    description: row.description,
    enabled: row.enabled === 1,
    disabledReason: row.enabled === 1 ? null : ((row.disabled_reason ?? 'manual') as Endpoint['disabledReason']),
    createdAt: formatInstant(row.created_at, timezone),
    updatedAt: formatInstant(row.updated_at, timezone),
  };
}

/**
 * The URL checked as CONTRACT §7 asks, or a 400 saying what is wrong with it. A refused host name's
 * reason (no address, or which address) goes to the server log only: told to the company, it would
 * map the service's own network.
 */
async function checkedUrl(url: string, env: EndpointEnvironment): Promise<string> {
  try {
    return await checkDestination(url, env.policy);
  } catch (error) {
    if (error instanceof InvalidWebhookUrl) throw badRequest('invalid_webhook_url', `The webhook URL is refused: ${error.message}.`, [{ path: '/url', message: error.message }]);
    if (!(error instanceof DestinationRefused)) throw error;
    env.log.info({ destination: error.logDetail }, 'webhook destination refused');
    throw badRequest('webhook_destination_refused', `The webhook URL is refused: ${error.message}; webhooks go only to public addresses.`, [{ path: '/url', message: `${error.message}; webhooks go only to public addresses` }]);
  }
}

function typesText(types: readonly string[] | null | undefined): string | null {
  return types ? JSON.stringify(types) : null;
}

export async function createEndpoint(db: Db, env: EndpointEnvironment, companyId: string, input: EndpointInput, changeLogPosition: number): Promise<{ row: EndpointRow; secret: string }> {
  const url = await checkedUrl(input.url, env);
  const id = newId('whe', env.now);
  const secret = newEndpointSecret();
  const row: EndpointRow = {
    id,
    company_id: companyId,
    url,
    types: typesText(input.types),
    description: input.description ?? null,
    enabled: 1,
    disabled_reason: null,
    secret_sealed: env.box.seal(secret, secretContext(id)),
    previous_secret_sealed: null,
    previous_secret_until: null,
    earlier_secrets_sealed: null,
    created_at: env.now,
    updated_at: env.now,
    // Changes committed after the endpoint exists are its own; older ones are not sent, nor replayed.
    origin_seq: changeLogPosition,
    delivered_seq: changeLogPosition,
    head_message_id: null,
    head_attempt: 0,
    next_attempt_at: 0,
    lease_owner: null,
    lease_until: 0,
  };
  await db.insertInto('webhook_endpoints').values(row).execute();
  return { row, secret };
}

export async function findEndpoint(db: Db, companyId: string, id: string): Promise<EndpointRow> {
  const row = await db.selectFrom('webhook_endpoints').selectAll().where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('No webhook endpoint with this id.', 'webhook_not_found');
  return row;
}

/** The company's endpoints as a paged listing, ordered by id. */
export function endpointListing(db: Db, companyId: string, timezone: string): Listing<EndpointRow, Endpoint> {
  return {
    rows: (count, after) => {
      let query = db.selectFrom('webhook_endpoints').selectAll().where('company_id', '=', companyId);
      if (after !== undefined) query = query.where('id', '>', after[0] as string);
      return query.orderBy('id').limit(count).execute();
    },
    position: (row) => [row.id],
    present: (row) => presentEndpoint(row, timezone),
  };
}

export async function updateEndpoint(db: Db, env: EndpointEnvironment, companyId: string, id: string, changes: EndpointChanges): Promise<EndpointRow> {
  const current = await findEndpoint(db, companyId, id);
  const set: Partial<EndpointRow> = { updated_at: env.now };
  if (changes.url !== undefined) set.url = await checkedUrl(changes.url, env);
  if (changes.types !== undefined) set.types = typesText(changes.types);
  if (changes.description !== undefined) set.description = changes.description;
  if (changes.enabled === false && current.enabled === 1) Object.assign(set, { enabled: 0, disabled_reason: 'manual' });
  // Enabling resumes with the first undelivered message, the failed one included, on a fresh schedule.
  if (changes.enabled === true && current.enabled === 0) Object.assign(set, { enabled: 1, disabled_reason: null, head_attempt: 0, next_attempt_at: 0 });
  const row = await db.updateTable('webhook_endpoints').set(set).where('company_id', '=', companyId).where('id', '=', id).returningAll().executeTakeFirst();
  if (!row) throw notFound('No webhook endpoint with this id.', 'webhook_not_found');
  return row;
}

export async function deleteEndpoint(db: Db, companyId: string, id: string): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const deleted = await trx.deleteFrom('webhook_endpoints').where('company_id', '=', companyId).where('id', '=', id).executeTakeFirst();
    if (Number(deleted.numDeletedRows) === 0) throw notFound('No webhook endpoint with this id.', 'webhook_not_found');
    await trx.deleteFrom('webhook_messages').where('endpoint_id', '=', id).execute();
    await trx.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
  });
}

/** The replaced secrets still signing at `now`, newest first: the previous one, then the earlier ones. */
function replacedSecrets(row: SecretColumns, box: SecretBox, now: number): ReplacedSecret[] {
  // Every earlier secret was replaced before the previous one, so its overlap ended first: once the
  // previous one's has, there is nothing to open (every delivery of the endpoint's later life asks).
  if (row.previous_secret_sealed === null || Number(row.previous_secret_until ?? 0) <= now) return [];
  const previous: ReplacedSecret = { secret: box.open(row.previous_secret_sealed, secretContext(row.id)), until: Number(row.previous_secret_until ?? 0) };
  const earlier = row.earlier_secrets_sealed === null ? [] : (JSON.parse(box.open(row.earlier_secrets_sealed, earlierSecretsContext(row.id))) as ReplacedSecret[]);
  return [previous, ...earlier].filter((replaced) => replaced.until > now);
}

/**
 * A new secret. The current one keeps signing beside it for ROTATION_OVERLAP_MS, and so does every
 * secret replaced before whose overlap has not ended, up to MAX_REPLACED_SECRETS (the oldest go first).
 */
export async function rotateSecret(db: Db, env: EndpointEnvironment, companyId: string, id: string): Promise<{ secret: string; previousUntil: number }> {
  const current = await findEndpoint(db, companyId, id);
  const secret = newEndpointSecret();
  const previousUntil = env.now + ROTATION_OVERLAP_MS;
  const earlier = replacedSecrets(current, env.box, env.now).slice(0, MAX_REPLACED_SECRETS - 1);
  const updated = await db
    .updateTable('webhook_endpoints')
    .set({
      secret_sealed: env.box.seal(secret, secretContext(id)),
      previous_secret_sealed: current.secret_sealed,
      previous_secret_until: previousUntil,
      earlier_secrets_sealed: earlier.length === 0 ? null : env.box.seal(JSON.stringify(earlier), earlierSecretsContext(id)),
      updated_at: env.now,
    })
    .where('company_id', '=', companyId)
    .where('id', '=', id)
    // Two rotations racing: the second must not keep a secret the first already replaced.
    .where('secret_sealed', '=', current.secret_sealed)
    .executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) throw new ProblemError({ code: 'rotation_conflict', detail: 'The secret was rotated at the same moment; rotate again.' });
  return { secret, previousUntil };
}

/** The secrets a message is signed with now: the current one, then every replaced one still in its overlap. */
export function signingSecrets(row: SecretColumns, box: SecretBox, now: number): string[] {
  return [box.open(row.secret_sealed, secretContext(row.id)), ...replacedSecrets(row, box, now).map((replaced) => replaced.secret)];
}

/** Seals again with the current key every endpoint's secret (and replaced secrets) sealed with an older one. */
export async function resealEndpointSecrets(db: Db, box: SecretBox): Promise<number> {
  const endpoints = await db.selectFrom('webhook_endpoints').select(['id', 'secret_sealed', 'previous_secret_sealed', 'earlier_secrets_sealed']).execute();
  const context = (endpoint: { id: string }) => secretContext(endpoint.id);
  const current = await resealStale<(typeof endpoints)[number]>(box, endpoints, {
    sealed: (endpoint) => endpoint.secret_sealed,
    context,
    store: (endpoint, value) => db.updateTable('webhook_endpoints').set({ secret_sealed: value }).where('id', '=', endpoint.id).where('secret_sealed', '=', endpoint.secret_sealed).execute(),
  });
  const previous = await resealStale<(typeof endpoints)[number]>(box, endpoints, {
    sealed: (endpoint) => endpoint.previous_secret_sealed,
    context,
    store: (endpoint, value) =>
      db.updateTable('webhook_endpoints').set({ previous_secret_sealed: value }).where('id', '=', endpoint.id).where('previous_secret_sealed', '=', endpoint.previous_secret_sealed).execute(),
  });
  const earlier = await resealStale<(typeof endpoints)[number]>(box, endpoints, {
    sealed: (endpoint) => endpoint.earlier_secrets_sealed,
    context: (endpoint) => earlierSecretsContext(endpoint.id),
    store: (endpoint, value) =>
      db.updateTable('webhook_endpoints').set({ earlier_secrets_sealed: value }).where('id', '=', endpoint.id).where('earlier_secrets_sealed', '=', endpoint.earlier_secrets_sealed).execute(),
  });
  return current + previous + earlier;
}
