// `wfs` identity and database commands (contract: operator side), run against a fresh database: the exact
// --json result of each, what they change in the database, and how failures are reported. A usage
// error without --json and the split of secrets between the streams run as real processes: the exit
// status and the streams as the operator's shell sees them.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { freshDatabase, type FreshDatabase } from '../support/database.ts';
import { createDatabase, type Db } from '../../src/platform/db/database.ts';
import { verifyUserSecret } from '../../src/iam/secrets.ts';
import { createApiClient, createApiUser, createCompany, createOrganisation } from '../../src/iam/provisioning.ts';
import { lastJson } from '../support/processes.ts';
import { clientTakesSecret } from '../support/tenants.ts';
import { wfs, wfsJson, wfsProcess } from './wfs.ts';

const MIGRATIONS = readdirSync(fileURLToPath(new URL('../../src/platform/db/migrations/', import.meta.url)))
  .filter((file) => /^\d{4}_.*\.ts$/.test(file))
  .map((file) => file.replace(/\.ts$/, ''))
  .sort();

let database: FreshDatabase;
let db: Db;
let url: string;

before(async () => {
  database = await freshDatabase();
  url = database.url;
  db = createDatabase(url);
});
after(async () => {
  await db.destroy();
  await database.drop();
});

// Set-up goes through the domain functions directly: each test spawns only the command it is about.
async function company(): Promise<{ organisationId: string; companyId: string }> {
  const { organisationId } = await createOrganisation(db, { name: 'Acme Hospitality' });
  const { companyId } = await createCompany(db, { organisationId, name: 'Acme Utrecht', timezone: 'Europe/Amsterdam', currency: 'EUR' });
  return { organisationId, companyId };
}

async function client(companyId: string): Promise<{ clientId: string; clientSecret: string }> {
  return createApiClient(db, { companyId, name: 'Rostering', redirectUris: ['https://app.example.com/cb'] });
}

test('migrate applies every migration on a fresh database in name order, then nothing', async () => {
  assert.deepEqual(await wfsJson(url, ['migrate']), { applied: MIGRATIONS });
  assert.deepEqual(await wfsJson(url, ['migrate']), { applied: [] });
});

test('create-organisation and create-company print their ids and store what was given', async () => {
  const org = await wfsJson(url, ['create-organisation', '--name', 'Acme Hospitality']);
  assert.deepEqual(Object.keys(org), ['organisationId']);
  const organisationId = String(org.organisationId);
  const created = await wfsJson(url, ['create-company', '--org', organisationId, '--name', 'Acme Gent', '--timezone', 'Europe/Brussels', '--currency', 'EUR', '--locale', 'nl-BE']);
  assert.deepEqual(Object.keys(created), ['companyId']);
  const row = await db.selectFrom('companies').selectAll().where('id', '=', String(created.companyId)).executeTakeFirstOrThrow();
  assert.deepEqual(
    { organisation: row.organisation_id, name: row.name, timezone: row.timezone, currency: row.currency, locale: row.locale },
    { organisation: organisationId, name: 'Acme Gent', timezone: 'Europe/Brussels', currency: 'EUR', locale: 'nl-BE' },
  );
  const audit = await db.selectFrom('audit_log').select(['event', 'actor_kind', 'detail', 'context']).where('organisation_id', '=', organisationId).orderBy('at').orderBy('id').execute();
  assert.deepEqual(audit.map((entry) => ({ ...entry, context: JSON.parse(entry.context ?? 'null') as unknown })), [
    { event: 'operator_change', actor_kind: 'operator', detail: 'organisation_created', context: { name: 'Acme Hospitality' } },
    { event: 'operator_change', actor_kind: 'operator', detail: 'company_created', context: { companyId: created.companyId, name: 'Acme Gent' } },
  ], 'both are operator changes in the new organisation\'s audit log');
});

test('create-api-client takes repeated --redirect-uri and prints a secret that only hashes are kept of', async () => {
  const { companyId } = await company();
  const result = await wfsJson(url, ['create-api-client', '--company', companyId, '--name', 'Rostering', '--redirect-uri', 'https://app.example.com/cb', '--redirect-uri', 'http://127.0.0.1/cb']);
  assert.deepEqual(Object.keys(result).sort(), ['clientId', 'clientSecret']);
  const row = await db.selectFrom('api_clients').selectAll().where('id', '=', String(result.clientId)).executeTakeFirstOrThrow();
  assert.equal(row.company_id, companyId);
  assert.deepEqual(JSON.parse(row.redirect_uris), ['https://app.example.com/cb', 'http://127.0.0.1/cb']);
  assert.notEqual(row.secret_hash, result.clientSecret);
  assert.ok(await clientTakesSecret(db, row.id, String(result.clientSecret)));
});

test('create-api-user generates the secret, prints it once with the normalised email', async () => {
  const { companyId } = await company();
  const { clientId } = await client(companyId);
  const result = await wfsJson(url, ['create-api-user', '--client', clientId, '--email', 'Planner@Example.com']);
  assert.deepEqual(Object.keys(result).sort(), ['email', 'secret', 'userId']);
  assert.equal(result.email, 'planner@example.com');
  const row = await db.selectFrom('api_users').selectAll().where('id', '=', String(result.userId)).executeTakeFirstOrThrow();
  assert.equal(row.client_id, clientId);
  assert.ok(await verifyUserSecret(String(result.secret), row.secret_hash));
});

test('enable-grant and disable-grant answer the client and its grants', async () => {
  const { companyId } = await company();
  const { clientId } = await client(companyId);
  assert.deepEqual(await wfsJson(url, ['enable-grant', '--client', clientId, '--grant', 'refresh_token']), { clientId, grants: ['authorization_code', 'refresh_token'] });
  assert.deepEqual(await wfsJson(url, ['enable-grant', '--client', clientId, '--grant', 'client_credentials']), { clientId, grants: ['authorization_code', 'client_credentials', 'refresh_token'] });
  assert.deepEqual(await wfsJson(url, ['disable-grant', '--client', clientId, '--grant', 'refresh_token']), { clientId, grants: ['authorization_code', 'client_credentials'] });
  const row = await db.selectFrom('api_clients').select('grants').where('id', '=', clientId).executeTakeFirstOrThrow();
  assert.deepEqual(JSON.parse(row.grants), ['authorization_code', 'client_credentials']);
});

test('rotate-client-secret prints a new secret; the old one stops matching', async () => {
  const { companyId } = await company();
  const { clientId, clientSecret } = await client(companyId);
  const result = await wfsJson(url, ['rotate-client-secret', '--client', clientId]);
  assert.deepEqual(Object.keys(result).sort(), ['clientId', 'clientSecret']);
  assert.equal(result.clientId, clientId);
  assert.notEqual(result.clientSecret, clientSecret);
  assert.ok(await clientTakesSecret(db, clientId, String(result.clientSecret)));
  assert.ok(!(await clientTakesSecret(db, clientId, clientSecret)));
});

test('disable-api-client / enable-api-client and disable-api-user / enable-api-user switch the flag', async () => {
  const { companyId } = await company();
  const { clientId } = await client(companyId);
  const { userId } = await createApiUser(db, { clientId, email: 'ops@example.com' });
  const clientFlag = async () => (await db.selectFrom('api_clients').select('disabled').where('id', '=', clientId).executeTakeFirstOrThrow()).disabled;
  const userFlag = async () => (await db.selectFrom('api_users').select('disabled').where('id', '=', userId).executeTakeFirstOrThrow()).disabled;

  assert.deepEqual(await wfsJson(url, ['disable-api-client', '--client', clientId]), { clientId, disabled: true });
  assert.equal(await clientFlag(), 1);
  assert.deepEqual(await wfsJson(url, ['enable-api-client', '--client', clientId]), { clientId, disabled: false });
  assert.equal(await clientFlag(), 0);
  assert.deepEqual(await wfsJson(url, ['disable-api-user', '--user', userId]), { userId, disabled: true });
  assert.equal(await userFlag(), 1);
  assert.deepEqual(await wfsJson(url, ['enable-api-user', '--user', userId]), { userId, disabled: false });
  assert.equal(await userFlag(), 0);
});

test('rotate-signing-key publishes a key that signs after 120 s by default, or after --activate-in', async () => {
  const started = Date.now();
  const result = await wfsJson(url, ['rotate-signing-key']);
  assert.deepEqual(Object.keys(result).sort(), ['activatesAt', 'kid']);
  const activatesAt = Date.parse(String(result.activatesAt));
  assert.equal(new Date(activatesAt).toISOString(), result.activatesAt, 'an ISO 8601 instant');
  assert.ok(activatesAt >= started + 120_000 && activatesAt <= Date.now() + 120_000, `activates about 120 s ahead: ${String(result.activatesAt)}`);
  const row = await db.selectFrom('signing_keys').select(['activates_at', 'retired_at', 'private_jwk']).where('kid', '=', String(result.kid)).executeTakeFirstOrThrow();
  assert.deepEqual({ activatesAt: row.activates_at, retired: row.retired_at }, { activatesAt, retired: null });
  assert.match(row.private_jwk, /^v2\./, 'the private key is stored sealed');
  assert.doesNotMatch(row.private_jwk, /"d"/);

  const soon = await wfsJson(url, ['rotate-signing-key', '--activate-in', '5']);
  assert.ok(Date.parse(String(soon.activatesAt)) <= Date.now() + 5_000);
  const previous = await db.selectFrom('signing_keys').select(['retired_at', 'unpublish_at']).where('kid', '=', String(result.kid)).executeTakeFirstOrThrow();
  assert.equal(previous.retired_at, Date.parse(String(soon.activatesAt)), 'the earlier key retires when the new one starts');
  // Defaults: refresh token 180 d + access token 1 h + 3 s skew, so every token it signed still verifies.
  assert.equal(previous.unpublish_at, Date.parse(String(soon.activatesAt)) + (15_552_000 + 3600 + 3) * 1000);
});

test('withdraw-signing-key withdraws a published key at once; a replacement signs at once when it was the signing key; an unknown kid exits 1', async () => {
  const retain = (15_552_000 + 3600 + 3) * 1000;
  const keyRow = async (kid: string) => ({ ...(await db.selectFrom('signing_keys').select(['activates_at', 'retired_at', 'unpublish_at']).where('kid', '=', kid).executeTakeFirstOrThrow()) });
  const signing = String((await wfsJson(url, ['rotate-signing-key', '--activate-in', '0'])).kid);
  const scheduled = await wfsJson(url, ['rotate-signing-key']);
  const scheduledAt = Date.parse(String(scheduled.activatesAt));

  const started = Date.now();
  const withdrawn = await wfsJson(url, ['withdraw-signing-key', '--kid', signing]);
  assert.deepEqual(Object.keys(withdrawn).sort(), ['kid', 'replacement', 'withdrawnAt']);
  assert.equal(withdrawn.kid, signing);
  const withdrawnAt = Date.parse(String(withdrawn.withdrawnAt));
  assert.ok(withdrawnAt >= started && withdrawnAt <= Date.now());
  assert.equal((await keyRow(signing)).unpublish_at, withdrawnAt, 'no longer published, so no longer verifying');
  // The key that signed is replaced at once, until the key already scheduled activates as planned.
  const replacement = withdrawn.replacement as { kid: string; activatesAt: string };
  assert.deepEqual(Object.keys(replacement).sort(), ['activatesAt', 'kid']);
  assert.deepEqual(await keyRow(replacement.kid), { activates_at: withdrawnAt, retired_at: scheduledAt, unpublish_at: scheduledAt + retain });
  assert.deepEqual(await keyRow(String(scheduled.kid)), { activates_at: scheduledAt, retired_at: null, unpublish_at: null });

  // The scheduled key withdrawn too: the replacement signs on, with no end.
  const early = await wfsJson(url, ['withdraw-signing-key', '--kid', String(scheduled.kid)]);
  assert.equal(early.replacement, null);
  assert.deepEqual(await keyRow(replacement.kid), { activates_at: withdrawnAt, retired_at: null, unpublish_at: null });

  const rotations = await db.selectFrom('audit_log').select('context').where('detail', '=', 'signing_key_rotated').execute();
  assert.ok(rotations.some((row) => (JSON.parse(row.context ?? '{}') as { kid?: string }).kid === signing), 'rotations are audited too');
  const audit = await db.selectFrom('audit_log').select(['event', 'actor_kind', 'context']).where('detail', '=', 'signing_key_withdrawn').orderBy('at').execute();
  assert.deepEqual(audit.map((row) => ({ ...row, context: JSON.parse(row.context ?? '{}') as unknown })), [
    { event: 'operator_change', actor_kind: 'operator', context: { kid: signing, replacementKid: replacement.kid } },
    { event: 'operator_change', actor_kind: 'operator', context: { kid: scheduled.kid, replacementKid: null } },
  ]);

  for (const kid of [signing, 'key_unknown']) {
    const again = await wfs(url, ['withdraw-signing-key', '--kid', kid, '--json']);
    assert.equal(again.code, 1);
    assert.deepEqual(Object.keys(lastJson(again)), ['error']);
    assert.match(String(lastJson(again).error), new RegExp(`^No published signing key ${kid} `));
  }
});

test('withdraw-signing-key refuses to leave the service without a signing key: a replacement it cannot seal for the servers (another SECRETS_KEY) writes nothing', async () => {
  const signing = String((await wfsJson(url, ['rotate-signing-key', '--activate-in', '0'])).kid);
  const keysBefore = await db.selectFrom('signing_keys').selectAll().orderBy('kid').execute();
  const refused = await wfs(url, ['withdraw-signing-key', '--kid', signing, '--json'], { SECRETS_KEY: randomBytes(32).toString('base64') });
  assert.equal(refused.code, 1);
  assert.match(String(lastJson(refused).error), /^Signing key key_\S+ cannot be unsealed/);
  assert.deepEqual(await db.selectFrom('signing_keys').selectAll().orderBy('kid').execute(), keysBefore, 'nothing written: the key still signs and verifies');
});

test('seed-demo prints the demo organisation and its credentials', async () => {
  const demo = await wfsJson(url, ['seed-demo'], { BASE_URL: 'https://wfs.example.com' });
  assert.deepEqual(Object.keys(demo).sort(), ['clientId', 'clientSecret', 'companyId', 'organisationId', 'redirectUri', 'userEmail', 'userSecret']);
  assert.equal(demo.redirectUri, 'https://wfs.example.com/demo/callback');
  const user = await db.selectFrom('api_users').select(['client_id', 'email']).where('email', '=', String(demo.userEmail)).executeTakeFirstOrThrow();
  assert.equal(user.client_id, demo.clientId);
});

test('a rejected input exits 1 and prints {error, errors} with a path per problem', async () => {
  const { organisationId } = await company();
  const run = await wfs(url, ['create-company', '--org', organisationId, '--name', 'X', '--timezone', 'Mars/Olympus', '--currency', 'euro', '--json']);
  assert.equal(run.code, 1);
  const body = lastJson(run);
  assert.deepEqual(Object.keys(body), ['error', 'errors']);
  assert.equal(typeof body.error, 'string');
  assert.deepEqual((body.errors as { path: string }[]).map((e) => e.path), ['/timezone', '/currency']);
  assert.match(run.stderr, /\/timezone must be an IANA time zone/);
});

test('create-api-client refuses a malformed redirect URI (port 99999, 0, 01) and creates nothing', async () => {
  const { companyId } = await company();
  for (const uri of ['http://127.0.0.1:99999/cb', 'http://127.0.0.1:0/cb', 'http://127.0.0.1:01/cb']) {
    const run = await wfs(url, ['create-api-client', '--company', companyId, '--name', 'Bad port', '--redirect-uri', 'https://app.example.com/cb', '--redirect-uri', uri, '--json']);
    assert.equal(run.code, 1, uri);
    assert.deepEqual((lastJson(run).errors as { path: string }[]).map((e) => e.path), ['/redirectUris/1']);
    assert.match(run.stderr, /must have a port from 1 to 65535/);
  }
  assert.equal((await db.selectFrom('api_clients').select('id').where('name', '=', 'Bad port').execute()).length, 0);
});

test('an unknown id exits 1 with {error} naming it, and nothing else on the last line', async () => {
  const run = await wfs(url, ['disable-api-client', '--client', 'cli_doesnotexist', '--json']);
  assert.equal(run.code, 1);
  assert.deepEqual(lastJson(run), { error: 'No API client cli_doesnotexist.' });
});

test('usage errors (unknown command or option, missing or bad option) exit 2 with a clear message', async () => {
  const cases: [string[], RegExp][] = [
    [[], /a command is required/],
    [['create-organization', '--name', 'Acme'], /unknown command 'create-organization'/],
    [['create-organisation', '--name', 'Acme', '--colour', 'red'], /unknown option '--colour'/],
    [['create-company', '--name', 'Acme'], /required option '--org <organisationId>' not specified/],
    [['enable-grant', '--client', 'cli_x', '--grant', 'password'], /Allowed choices are client_credentials, refresh_token/],
    [['rotate-signing-key', '--activate-in', 'soon'], /whole number of seconds/],
    [['withdraw-signing-key'], /required option '--kid <kid>' not specified/],
  ];
  const runs = await Promise.all(cases.map(([args]) => wfs(url, [...args, '--json'])));
  for (const [index, [args, message]] of cases.entries()) {
    const run = runs[index] ?? assert.fail();
    assert.equal(run.code, 2, args.join(' '));
    assert.match(String(lastJson(run).error), message);
    if (args.length > 0) assert.match(run.stderr, message);
  }
  const plain = await wfsProcess(url, ['create-organization', '--name', 'Acme']);
  assert.equal(plain.code, 2);
  assert.equal(plain.stdout, '', 'without --json nothing goes to standard output');
});

test('without --json secrets are shown once with a warning; with --json only the JSON carries them', async () => {
  const { companyId } = await company();
  const text = await wfsProcess(url, ['create-api-client', '--company', companyId, '--name', 'Text', '--redirect-uri', 'https://app.example.com/cb']);
  assert.equal(text.code, 0);
  const secret = /Client secret:\s+(\S+)/.exec(text.stdout)?.[1] ?? '';
  assert.match(secret, /^[A-Za-z0-9_-]{43}$/);
  assert.match(text.stdout, /shown only this once/);
  assert.equal(text.stdout.split(secret).length - 1, 1, 'the secret appears once');
  assert.ok(!text.stderr.includes(secret));

  const json = await wfsProcess(url, ['create-api-client', '--company', companyId, '--name', 'Json', '--redirect-uri', 'https://app.example.com/cb', '--json']);
  const result = lastJson(json);
  assert.equal(json.stdout.trim().split('\n').length, 1, 'one JSON line on standard output');
  assert.ok(!json.stderr.includes(String(result.clientSecret)), 'standard error never shows the secret');
  assert.match(json.stderr, /Created API client/);
});

test('a bad DATABASE_URL is a configuration error (exit 2), with --json too', async () => {
  const run = await wfs('mysql://nowhere', ['migrate', '--json']);
  assert.equal(run.code, 2);
  assert.match(String(lastJson(run).error), /^Configuration error: DATABASE_URL must be/);
});
