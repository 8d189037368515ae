// The operator API (contract: operator side) under /api/v1/admin: the `wfs` actions over HTTP, for operators who
// automate provisioning. Every route answers the same JSON as the matching `wfs … --json` command.
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { TSchema } from 'typebox';
import { absentBodyIsEmpty, problemBody, type App } from '../platform/http.ts';
import type { Config } from '../platform/config.ts';
import { secretBox } from '../platform/sealed-secrets.ts';
import { problemResponses } from '../platform/schemas.ts';
import { createApiClient, createApiUser, createCompany, createOrganisation, setGrantEnabled } from '../iam/provisioning.ts';
import { ImportDocument, ImportResult } from '../company/import.ts';
import type { Rejection } from '../company/import-job.ts';
import { importedCompanyData } from './company-import.ts';
import { markChecked } from '../platform/unstorable-text.ts';
import { bodyIntoOneBuffer } from '../platform/body-buffer.ts';
import { badRequest } from '../platform/errors.ts';
import type { Db } from '../platform/db/database.ts';
import { requireOperator } from './guard.ts';
import { endSecretOverlap } from '../iam/client-admin.ts';
import { approveGrantRequest, declineGrantRequest, listGrantRequests } from '../iam/grant-requests.ts';
import { OPERATOR } from '../iam/audit.ts';
import type { KeyRing } from '../iam/key-ring.ts';
import { newClientSecret, newSigningKey, switchClient, switchUser, withdrawnSigningKey } from './operations.ts';
import { ClientCredentials, CreatedApiUser, CreatedCompany, CreatedOrganisation, NewApiClient, NewApiUser, NewCompany, NewOrganisation } from '../iam/provisioning-schemas.ts';
import {
  ClientGrants,
  ClientParams,
  ClientState,
  CompanyParams,
  DeclineGrantRequestBody,
  GrantParams,
  GrantRequest,
  GrantRequestList,
  GrantRequestParams,
  GrantRequestQuery,
  RotateClientSecretBody,
  RotateSigningKeyBody,
  RotatedSigningKey,
  SecretOverlapEnded,
  SigningKeyParams,
  UserParams,
  UserState,
  WithdrawnSigningKey,
} from './schemas.ts';

/** A whole company's data can be far larger than the 2 MiB of the company API. */
const IMPORT_BODY_LIMIT = 64 * 1024 * 1024;

/** The documentation every operator route shares; `status` is the success status. */
export function operatorSchema(operationId: string, summary: string, status: 200 | 201, result: TSchema, ...errors: number[]) {
  return {
    tags: ['operator'],
    operationId,
    summary,
    security: [{ adminToken: [] }],
    response: { [status]: result, ...problemResponses(401, 404, ...errors) },
  };
}

/** What the operator API needs of the context (src/app/feature-options.ts builds it). */
export interface AdminRouteDeps {
  readonly db: Db;
  /** This instance's key ring, reloaded once a rotation or withdrawal commits (`applied`). */
  readonly keys: Pick<KeyRing, 'reload'>;
  readonly config: Pick<Config, 'adminToken' | 'authUrl' | 'refreshTokenTtl' | 'accessTokenTtl' | 'clockSkewSeconds' | 'databaseUrl' | 'dbStatementTimeoutMs' | 'secretsKey' | 'secretsKeyPrevious'>;
}

export async function adminRoutes(app: App, { deps }: { deps: AdminRouteDeps }): Promise<void> {
  app.addHook('onRequest', async (request) => requireOperator(deps.config.adminToken, request));
  const { db } = deps;

  app.post('/api/v1/admin/organisations', { schema: { body: NewOrganisation, ...operatorSchema('adminCreateOrganisation', 'Create a customer organisation', 201, CreatedOrganisation, 400) } },
    async (request, reply) => reply.code(201).send(await createOrganisation(db, request.body)));

  app.post('/api/v1/admin/companies', { schema: { body: NewCompany, ...operatorSchema('adminCreateCompany', 'Create a company in an organisation', 201, CreatedCompany, 400) } },
    async (request, reply) => reply.code(201).send(await createCompany(db, request.body)));

  app.post('/api/v1/admin/api-clients', { schema: { body: NewApiClient, ...operatorSchema('adminCreateApiClient', 'Create an API Client; the secret is shown once', 201, ClientCredentials, 400) } },
    async (request, reply) => reply.code(201).send(await createApiClient(db, request.body)));

  app.post('/api/v1/admin/api-users', { schema: { body: NewApiUser, ...operatorSchema('adminCreateApiUser', 'Create the API User of a client; the secret is generated and shown once', 201, CreatedApiUser, 400, 409) } },
    async (request, reply) => reply.code(201).send(await createApiUser(db, request.body)));

  app.post('/api/v1/admin/api-clients/:clientId/grants/:grant', { schema: { params: GrantParams, ...operatorSchema('adminEnableGrant', 'Enable client_credentials, refresh_token or sso for a client', 200, ClientGrants, 400) } },
    async (request) => setGrantEnabled(db, request.params.clientId, request.params.grant, true));

  app.delete('/api/v1/admin/api-clients/:clientId/grants/:grant', { schema: { params: GrantParams, ...operatorSchema('adminDisableGrant', 'Disable a grant type for a client (revokes nothing)', 200, ClientGrants, 400) } },
    async (request) => setGrantEnabled(db, request.params.clientId, request.params.grant, false));

  app.post('/api/v1/admin/api-clients/:clientId/rotate-secret', {
    schema: {
      params: ClientParams,
      body: RotateClientSecretBody,
      ...operatorSchema('adminRotateClientSecret', 'Issue a new client secret: at once (revokes every grant issued under the old one), or with overlapSeconds (the old secret keeps working that long; nothing revoked)', 200, ClientCredentials, 400),
    },
    // A bare POST (no body) is the immediate rotation, as before overlaps existed.
    preValidation: absentBodyIsEmpty,
  }, async (request) => newClientSecret(db, request.params.clientId, request.body.overlapSeconds));

  app.post('/api/v1/admin/api-clients/:clientId/end-secret-overlap', { schema: { params: ClientParams, ...operatorSchema('adminEndSecretOverlap', 'End a rotation with overlap early: the previous secret stops working now', 200, SecretOverlapEnded) } },
    async (request) => endSecretOverlap(db, request.params.clientId, OPERATOR));

  app.get('/api/v1/admin/grant-requests', { schema: { querystring: GrantRequestQuery, ...operatorSchema('adminListGrantRequests', 'Grant requests of every organisation, newest first', 200, GrantRequestList, 400) } },
    async (request) => ({ requests: await listGrantRequests(db, request.query) }));

  app.post('/api/v1/admin/grant-requests/:requestId/approve', { schema: { params: GrantRequestParams, ...operatorSchema('adminApproveGrantRequest', 'Approve a pending grant request: enables the grant for its client', 200, GrantRequest, 409) } },
    async (request) => approveGrantRequest(db, request.params.requestId, OPERATOR));

  app.post('/api/v1/admin/grant-requests/:requestId/decline', { schema: { params: GrantRequestParams, body: DeclineGrantRequestBody, ...operatorSchema('adminDeclineGrantRequest', 'Decline a pending grant request with the reason the customer sees', 200, GrantRequest, 400, 409) } },
    async (request) => declineGrantRequest(db, request.params.requestId, request.body.reason, OPERATOR));

  app.post('/api/v1/admin/api-clients/:clientId/disable', { schema: { params: ClientParams, ...operatorSchema('adminDisableApiClient', 'Disable a client: revokes its grants and pending codes', 200, ClientState) } },
    async (request) => switchClient(db, request.params.clientId, true));

  app.post('/api/v1/admin/api-clients/:clientId/enable', { schema: { params: ClientParams, ...operatorSchema('adminEnableApiClient', 'Re-enable a client (no revoked grant comes back)', 200, ClientState) } },
    async (request) => switchClient(db, request.params.clientId, false));

  app.post('/api/v1/admin/api-users/:userId/disable', { schema: { params: UserParams, ...operatorSchema('adminDisableApiUser', 'Disable an API User: revokes its grants and pending codes', 200, UserState) } },
    async (request) => switchUser(db, request.params.userId, true));

  app.post('/api/v1/admin/api-users/:userId/enable', { schema: { params: UserParams, ...operatorSchema('adminEnableApiUser', 'Re-enable an API User (no revoked grant comes back)', 200, UserState) } },
    async (request) => switchUser(db, request.params.userId, false));

  app.post('/api/v1/admin/signing-keys/rotate', {
    schema: { body: RotateSigningKeyBody, ...operatorSchema('adminRotateSigningKey', 'Publish a new signing key that starts signing after activateInSeconds', 200, RotatedSigningKey, 400) },
    // Every field is optional, so a bare POST (no body at all) means "the defaults".
    preValidation: absentBodyIsEmpty,
  }, async (request) => applied(deps.keys, newSigningKey(db, await secretBox(db, deps.config), deps.config, request.body.activateInSeconds)));

  app.post('/api/v1/admin/signing-keys/:kid/withdraw', {
    schema: {
      params: SigningKeyParams,
      ...operatorSchema(
        'adminWithdrawSigningKey',
        'Withdraw a leaked signing key at once',
        200,
        WithdrawnSigningKey,
      ),
      description: 'The key leaves the JWKS now and every token it signed is refused (401 invalid_token), tokens verified and cached before included: on the instance that answers at once (from this answer on it signs only with the remaining keys), on every other instance within its key-ring reload (KEY_REFRESH_MS, 1 s); refresh tokens it signed stop renewing (their holders sign in again). When the key was the one signing (or the only key), a new key is created in the same transaction and signs at once (`replacement`); a key already scheduled keeps its activation. 404 for a kid that is not published (unknown, withdrawn before, or expired).',
    },
  }, async (request) => applied(deps.keys, withdrawnSigningKey(db, await secretBox(db, deps.config), deps.config, request.params.kid)));

  await app.register(importRoute, { deps });
}

/**
 * A committed key change, applied to this instance's key ring before the answer: from the 200 on it
 * signs no token with a withdrawn key (or a replaced one, when the new key activates at once) and
 * refuses a withdrawn key's tokens. Other instances see it on their next poll (KEY_REFRESH_MS).
 */
async function applied<T>(keys: Pick<KeyRing, 'reload'>, change: Promise<T>): Promise<T> {
  const result = await change;
  await keys.reload();
  return result;
}

/**
 * The import in a scope of its own, for its body parser: up to 64 MiB, read into one buffer as it
 * arrives (platform/body-buffer.ts) and handed to a
 * worker thread that reads, checks and writes it (company/import-job.ts), so that no request holds
 * the event loop (CONTRACT §4). The worker refuses unstorable text itself, so the body is marked as
 * checked.
 */
async function importRoute(app: App, { deps }: { deps: AdminRouteDeps }): Promise<void> {
  app.removeAllContentTypeParsers();
  const readBody = bodyIntoOneBuffer(IMPORT_BODY_LIMIT);
  app.addContentTypeParser('application/json', (request, payload, done) => {
    readBody(request, payload, (error, body) => {
      if (body) markChecked(body);
      done(error, body);
    });
  });
  app.post('/api/v1/admin/companies/:companyId/import', {
    schema: { params: CompanyParams, body: ImportDocument, ...operatorSchema('adminImportCompanyData', 'Import company data: validated whole, applied in one transaction, upserted by ref', 200, ImportResult, 400) },
    bodyLimit: IMPORT_BODY_LIMIT,
    // The schema documents the format; the worker reads the document against it (import-document.ts)
    // so the API and `wfs import` report the same problems, each at its exact path (/shifts/3/start).
    validatorCompiler: () => (value: unknown) => ({ value }),
  }, async (request, reply) => {
    // A POST without a body reaches no parser: the worker reads it as the empty, malformed document it is.
    const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const outcome = await importedCompanyData(deps.db, deps.config, request.params.companyId, body, 'The request body');
    return 'problems' in outcome ? sendRejection(request, reply, outcome) : outcome;
  });
}

/**
 * A rejected import's problem+json, every problem listed (CONTRACT §5): its errors streamed from the
 * worker as the client reads them, since there may be millions (a document of empty entries).
 */
function sendRejection(request: FastifyRequest, reply: FastifyReply, rejection: Rejection): FastifyReply {
  const head = JSON.stringify(problemBody(request, badRequest('invalid_import', rejection.detail)));
  const body = Readable.from((async function* () {
    yield `${head.slice(0, -1)},"errors":[`;
    yield* rejection.problems;
    yield ']}';
  })(), { objectMode: false });
  // Also when the client leaves before the first chunk: the worker ends with its problems.
  body.once('close', () => rejection.problems.destroy());
  return reply.code(400).type('application/problem+json').send(body);
}
