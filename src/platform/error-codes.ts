// Every error code the service answers, once: its HTTP status, the problem's title and what it means.
// Call sites name a code (typed against this table); the status and title come from here, and
// test/platform/error-codes.test.ts checks the table against docs/errors.md.

export interface ErrorCodeEntry {
  readonly status: number;
  readonly title: string;
  readonly meaning: string;
}

/** The codes of problem+json answers (company API, operator API, CLI, console pages). */
export const ERROR_CODES = {
  validation_failed: { status: 400, title: 'Validation failed', meaning: 'a parameter or body field has the wrong type or value, or an unknown query parameter' },
  malformed_body: { status: 400, title: 'Malformed body', meaning: 'the body is not valid JSON, not valid UTF-8, nests too deeply or holds a number too long for any field' },
  invalid_character: { status: 400, title: 'Invalid character', meaning: 'a string holds U+0000 or an unpaired UTF-16 surrogate, which no database stores faithfully, or a percent-escape in the path, query or a form decodes to no UTF-8 text' },
  client_closed_request: { status: 400, title: 'Client closed request', meaning: 'the client closed the connection before its request was complete (logged; nobody hears the answer)' },
  bad_request: { status: 400, title: 'Bad request', meaning: 'any other request the HTTP layer refuses' },
  invalid_date: { status: 400, title: 'Invalid date', meaning: 'a date parameter that is not a real date' },
  invalid_period: { status: 400, title: 'Invalid period', meaning: '`from` after `to`' },
  replay_too_large: { status: 400, title: 'Replay too large', meaning: 'a webhook replay of a period holding more than 10,000 changes the endpoint selects' },
  period_too_long: { status: 400, title: 'Period too long', meaning: 'a period longer than the listing allows' },
  date_out_of_range: { status: 400, title: 'Date out of range', meaning: 'a feed date outside the window around today' },
  invalid_cursor: { status: 400, title: 'Invalid cursor', meaning: 'a cursor that was changed, or belongs to another query or tenant' },
  batch_too_large: { status: 400, title: 'Batch too large', meaning: 'more items in a batch than allowed' },
  invalid_batch: { status: 400, title: 'Invalid batch', meaning: 'a batch with bad items; nothing was stored' },
  invalid_import: { status: 400, title: 'Invalid import', meaning: 'an import document with problems; nothing was stored' },
  invalid_webhook_url: { status: 400, title: 'Invalid webhook URL', meaning: 'a webhook URL that is not absolute https, or carries credentials or a fragment' },
  webhook_destination_refused: { status: 400, title: 'Webhook destination refused', meaning: 'a webhook URL whose host is a non-public address, or does not resolve to public addresses only (a name that does not resolve included)' },
  sso_discovery_failed: { status: 400, title: 'SSO discovery failed', meaning: 'the issuer\'s OpenID configuration could not be read' },
  occurred_in_future: { status: 400, title: 'Occurred in the future', meaning: 'a timeclock event too far ahead of the server clock' },
  unreadable_file: { status: 400, title: 'Unreadable file', meaning: 'CLI: the import file cannot be read' },
  missing_token: { status: 401, title: 'Missing token', meaning: 'no Bearer token sent' },
  invalid_token: { status: 401, title: 'Invalid token', meaning: 'a bad, expired, revoked or wrong-audience token' },
  forbidden: { status: 403, title: 'Forbidden', meaning: 'a console user tried what only the operator decides' },
  csrf_token_invalid: { status: 403, title: 'Form expired', meaning: 'console: a form without its CSRF token or with another session\'s' },
  console_read_only: { status: 403, title: 'Read-only access', meaning: 'console: a viewer asked for a change' },
  not_found: { status: 404, title: 'Not found', meaning: 'no such route, or nothing by that id within the caller\'s reach' },
  company_not_found: { status: 404, title: 'Company not found', meaning: 'operator import into a company that does not exist' },
  webhook_not_found: { status: 404, title: 'Webhook not found', meaning: 'no webhook endpoint by that id in the token\'s company' },
  delivery_not_found: { status: 404, title: 'Delivery not found', meaning: 'no delivery by that id for that webhook endpoint' },
  invitation_not_found: { status: 404, title: 'Invitation not found', meaning: 'console: a used, expired or unknown invitation link' },
  request_timeout: { status: 408, title: 'Request timeout', meaning: 'the request did not arrive in time' },
  method_not_allowed: { status: 405, title: 'Method not allowed', meaning: 'a known path asked with another method' },
  email_taken: { status: 409, title: 'E-mail address taken', meaning: 'the address already belongs to a user of that client, or to a console account' },
  last_admin: { status: 409, title: 'Last admin', meaning: 'console: removing or demoting the organisation\'s last admin' },
  grant_already_enabled: { status: 409, title: 'Grant already enabled', meaning: 'a grant request for a grant the client already has' },
  grant_request_pending: { status: 409, title: 'Grant request pending', meaning: 'a grant request while one for the same client and grant is pending' },
  grant_request_decided: { status: 409, title: 'Grant request decided', meaning: 'approving or declining a grant request already decided' },
  replay_in_progress: { status: 409, title: 'Replay in progress', meaning: 'a webhook replay while changes replayed or retried earlier are still queued for the endpoint' },
  rotation_conflict: { status: 409, title: 'Rotation conflict', meaning: 'two rotations of one webhook secret at the same moment' },
  sso_domain_taken: { status: 409, title: 'SSO domain taken', meaning: 'an e-mail domain another organisation\'s provider already claims' },
  sso_provider_exists: { status: 409, title: 'SSO provider exists', meaning: 'the organisation already has a provider' },
  out_of_order: { status: 409, title: 'Out of order', meaning: 'a timeclock event not later than the person\'s last accepted one' },
  event_id_conflict: { status: 409, title: 'Event id conflict', meaning: 'an eventId reused with other content' },
  timeclock_inactive: { status: 409, title: 'Timeclock inactive', meaning: 'the person\'s timeclock is not active' },
  cursor_expired: { status: 410, title: 'Cursor expired', meaning: 'a changes cursor past retention: read the collections again, then follow from the head' },
  message_expired: { status: 410, title: 'Message expired', meaning: 'retry of a delivery whose change the change log no longer keeps' },
  payload_too_large: { status: 413, title: 'Payload too large', meaning: 'a body over the size limit' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type', meaning: 'a body that is not JSON, or declares another charset than UTF-8' },
  headers_too_large: { status: 431, title: 'Headers too large', meaning: 'request headers over the server\'s limit' },
  rate_limited: { status: 429, title: 'Rate limited', meaning: 'over the per-client limit of the secured API' },
  too_many_requests: { status: 429, title: 'Too many requests', meaning: 'login pages and console: too many failed sign-ins' },
  internal_error: { status: 500, title: 'Internal error', meaning: 'a fault of ours' },
  busy: { status: 503, title: 'Busy', meaning: 'one person\'s timeclock append lost too many races in a row' },
  unavailable: { status: 503, title: 'Unavailable', meaning: 'the service is closing or overloaded' },
  database_unavailable: { status: 503, title: 'Database unavailable', meaning: 'the database does not answer or (PostgreSQL) has no connection left, or (SQLite) another process (an instance, a `wfs` command) held the write lock for over 5 s' },
} as const satisfies Record<string, ErrorCodeEntry>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The `error` values of the OAuth endpoints (RFC 6749 §5.2, RFC 6750 §3, RFC 7009, RFC 8707). */
export const OAUTH_ERROR_CODES = {
  invalid_request: { status: 400, title: 'Invalid request', meaning: 'a parameter is missing, repeated or malformed; with 429, too many requests (see Retry-After)' },
  invalid_client: { status: 401, title: 'Invalid client', meaning: 'client authentication failed' },
  invalid_grant: { status: 400, title: 'Invalid grant', meaning: 'the code or refresh token is invalid, expired, used or revoked' },
  unauthorized_client: { status: 400, title: 'Unauthorized client', meaning: 'the client may not use this grant type' },
  unsupported_response_type: { status: 400, title: 'Unsupported response type', meaning: 'authorize: a response_type other than code (sent to the redirect URI)' },
  unsupported_grant_type: { status: 400, title: 'Unsupported grant type', meaning: 'a grant type the service does not know' },
  invalid_scope: { status: 400, title: 'Invalid scope', meaning: 'a scope the client may not ask for' },
  invalid_target: { status: 400, title: 'Invalid target', meaning: 'an audience the client may not ask for' },
  invalid_token: { status: 401, title: 'Invalid token', meaning: 'idToken: the refresh token is invalid' },
  server_error: { status: 500, title: 'Server error', meaning: 'a fault of ours' },
} as const satisfies Record<string, ErrorCodeEntry>;

export type OAuthErrorCode = keyof typeof OAUTH_ERROR_CODES;

/** The page listing every code (src/platform/error-page.ts, its route); a problem's `type` points into it. */
export const ERROR_PAGE_PATH = '/docs/errors';

/** A problem's `type`: the code's entry on the error page of the deployment at `baseUrl`. */
export function problemType(baseUrl: string, code: string): string {
  return `${baseUrl}${ERROR_PAGE_PATH}#${code}`;
}
