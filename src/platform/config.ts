// Configuration is read once from the environment into a typed, frozen object (contract: addresses and configuration).
// A bad value stops start-up with a message naming the variable, instead of failing later.
import { isIP } from 'node:net';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly baseUrl: string;
  readonly authUrl: string;
  readonly issuer: string;
  readonly databaseUrl: string;
  readonly redisUrl: string | undefined;
  readonly adminToken: string | undefined;
  /** Bearer token of GET /metrics; the endpoint answers 404 while it is unset. */
  readonly metricsToken: string | undefined;
  /** Where to report a vulnerability of this deployment (RFC 9116 `Contact`); /.well-known/security.txt is 404 while empty. */
  readonly securityContacts: readonly string[];
  /** The operator's vulnerability disclosure policy (RFC 9116 `Policy`), an https URL. */
  readonly securityPolicy: string | undefined;
  readonly accessTokenTtl: number;
  readonly refreshTokenTtl: number;
  readonly authCodeTtl: number;
  readonly refreshGraceSeconds: number;
  readonly refreshChainMaxSeconds: number;
  readonly rateLimitTokenPerMinute: number;
  readonly rateLimitApiPerMinute: number;
  readonly clockSkewSeconds: number;
  readonly logLevel: string;
  readonly dbPoolSize: number;
  readonly dbStatementTimeoutMs: number;
  readonly revocationRefreshMs: number;
  readonly keyRefreshMs: number;
  /**
   * Which peers may set X-Forwarded-For (Fastify's `trustProxy`): false (the default, the peer's own
   * address counts), a number of proxy hops, or a list of proxy addresses and CIDR ranges.
   */
  readonly trustProxy: false | number | string;
  /** SECRETS_KEY: 32 bytes that seal stored secrets (AES-256-GCM); unset, a key kept in the database. */
  readonly secretsKey: Buffer | undefined;
  /** SECRETS_KEY_PREVIOUS: comma-separated older keys that still open what they sealed (key rotation, docs/sso.md). */
  readonly secretsKeyPrevious: readonly Buffer[];
  /** SSO_ALLOW_INSECURE=1 (development and tests only): SSO providers over http and on loopback or private addresses. */
  readonly ssoAllowInsecure: boolean;
  /** How long a webhook receiver has to answer 2xx (WEBHOOK_TIMEOUT_MS). */
  readonly webhookTimeoutMs: number;
  /** Waits before each retry of a failed webhook message (WEBHOOK_RETRY_SCHEDULE), in milliseconds. */
  readonly webhookRetrySchedule: readonly number[];
  /** WEBHOOK_ALLOW_INSECURE=1: http and loopback/private destinations allowed (development and tests). */
  readonly webhookAllowInsecure: boolean;
  /** How often each instance looks for webhook work nothing told it of (WEBHOOK_POLL_MS). */
  readonly webhookPollMs: number;
  /** How long the change log keeps a change (CONTRACT §7). */
  readonly changesRetentionSeconds: number;
  /** Milliseconds for a request's headers and body to arrive before it is answered 408 (CONTRACT §4: 30 s). */
  readonly requestTimeoutMs: number;
  /** Connections one peer address may hold at once (0: no cap); not applied behind TRUST_PROXY. */
  readonly maxConnectionsPerAddress: number;
  /** PASSWORD_HASH_COST: log2 of scrypt's N for new API User secrets and console passwords (14: N = 16,384). */
  readonly passwordHashCost: number;
}

/** scrypt N = 2^14, about 50 ms of CPU per hash on this project's 2-core machine (docs/security.md). */
export const DEFAULT_PASSWORD_HASH_COST = 14;

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function integer(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min) throw new ConfigError(`${name} must be at least ${min}, got ${value}`);
  return value;
}

function httpUrl(name: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be an absolute URL, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ConfigError(`${name} must be an http(s) URL, got "${raw}"`);
  }
  return raw.replace(/\/+$/, '');
}

function databaseUrl(raw: string): string {
  if (raw.startsWith('sqlite:') || raw.startsWith('postgres://') || raw.startsWith('postgresql://')) return raw;
  throw new ConfigError(`DATABASE_URL must be sqlite:<path>, sqlite::memory: or postgres://…, got "${raw}"`);
}

// Trusting every peer would let any caller pick the address that failed logins are counted under.
function trustProxy(raw: string | undefined): false | number | string {
  if (raw === undefined || raw.trim() === '') return false;
  const value = raw.trim();
  if (/^\d+$/.test(value)) return Number(value) === 0 ? false : Number(value);
  const entries = value.split(',').map((entry) => entry.trim());
  for (const entry of entries) {
    const [address = '', bits, ...rest] = entry.split('/');
    const family = isIP(address);
    const maxBits = family === 6 ? 128 : 32;
    if (family === 0 || rest.length > 0 || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(`TRUST_PROXY must be a number of proxy hops or a comma-separated list of proxy addresses or CIDR ranges (10.0.0.0/8), got "${raw}"`);
    }
  }
  return entries.join(',');
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

function logLevel(raw: string): string {
  if (!LOG_LEVELS.includes(raw)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${raw}"`);
  return raw;
}

const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `5s,5m,30m,2h` → milliseconds; each entry a whole number and a unit (ms, s, m, h, d). */
function durations(env: Env, name: string, fallback: string): number[] {
  const raw = env[name] || fallback;
  return raw.split(',').map((entry) => {
    const match = /^(\d+)(ms|s|m|h|d)$/.exec(entry.trim());
    if (!match) throw new ConfigError(`${name} must be a comma-separated list of durations such as 5s,5m,2h, got "${raw}"`);
    return Number(match[1]) * (DURATION_UNITS[match[2] ?? 's'] ?? 1000);
  });
}

function secretsKey(raw: string | undefined, name = 'SECRETS_KEY'): Buffer | undefined {
  if (raw === undefined || raw === '') return undefined;
  const key = Buffer.from(raw, 'base64');
  if (key.length !== 32 || key.toString('base64').replace(/=+$/, '') !== raw.trim().replace(/=+$/, '')) {
    throw new ConfigError(`${name} must be 32 bytes in base64 (openssl rand -base64 32)`);
  }
  return key;
}

/** SECRETS_KEY_PREVIOUS: the keys a rotation retires, comma-separated. */
function previousSecretsKeys(raw: string | undefined): Buffer[] {
  return (raw ?? '').split(',').map((entry) => entry.trim()).filter((entry) => entry !== '').map((entry) => secretsKey(entry, 'SECRETS_KEY_PREVIOUS') as Buffer);
}

/** RFC 9116 §2.5.3: each contact a `mailto:`, `tel:` or `https://` URI. */
function securityContacts(raw: string | undefined): string[] {
  const contacts = (raw ?? '').split(',').map((contact) => contact.trim()).filter((contact) => contact !== '');
  for (const contact of contacts) {
    if (!/^(mailto:[^\s@]+@[^\s@]+|tel:\+?[0-9-]+|https:\/\/\S+)$/.test(contact)) {
      throw new ConfigError(`SECURITY_CONTACT must be mailto:, tel: or https:// URIs separated by commas, got "${contact}"`);
    }
  }
  return contacts;
}

function securityPolicy(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  if (!/^https:\/\/\S+$/.test(raw)) throw new ConfigError(`SECURITY_POLICY must be an https:// URL, got "${raw}"`);
  return raw;
}

function passwordHashCost(env: Env): number {
  const cost = integer(env, 'PASSWORD_HASH_COST', DEFAULT_PASSWORD_HASH_COST, 10);
  if (cost > 20) throw new ConfigError(`PASSWORD_HASH_COST must be between 10 and 20 (log2 of scrypt's N), got ${cost}`);
  return cost;
}

function optional(env: Env, name: string): string | undefined {
  const raw = env[name];
  return raw === undefined || raw === '' ? undefined : raw;
}

/** Bearer tokens shorter than this are guessable enough to warn about at start. */
export const STRONG_TOKEN_LENGTH = 16;

/**
 * What the server warns about at start: an ADMIN_TOKEN or METRICS_TOKEN shorter than 16 characters.
 * Not refused: the contract enables those APIs whenever the variable is set, and `wfs` commands that
 * never use the token must work with the same environment.
 */
export function weakTokenWarnings(config: Pick<Config, 'adminToken' | 'metricsToken'>): string[] {
  return Object.entries({ ADMIN_TOKEN: config.adminToken, METRICS_TOKEN: config.metricsToken })
    .filter(([, token]) => token !== undefined && token.length < STRONG_TOKEN_LENGTH)
    .map(([name]) => `${name} is shorter than ${STRONG_TOKEN_LENGTH} characters and could be guessed: use a long random value (openssl rand -base64 32)`);
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080);
  if (port > 65535) throw new ConfigError(`PORT must be at most 65535, got ${port}`);
  const baseUrl = httpUrl('BASE_URL', env.BASE_URL || `http://localhost:${port}`);
  const authUrl = httpUrl('AUTH_URL', env.AUTH_URL || baseUrl);
  const adminToken = optional(env, 'ADMIN_TOKEN');
  const metricsToken = optional(env, 'METRICS_TOKEN');
  const redisUrl = optional(env, 'REDIS_URL');
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl)) {
    throw new ConfigError(`REDIS_URL must be a redis:// URL, got "${redisUrl}"`);
  }
  return Object.freeze({
    port,
    host: env.HOST || '127.0.0.1',
    baseUrl,
    authUrl,
    issuer: `${baseUrl}/api/v1/iam`,
    databaseUrl: databaseUrl(env.DATABASE_URL || 'sqlite:./data/wfs.db'),
    redisUrl,
    adminToken,
    metricsToken,
    securityContacts: Object.freeze(securityContacts(optional(env, 'SECURITY_CONTACT'))),
    securityPolicy: securityPolicy(optional(env, 'SECURITY_POLICY')),
    accessTokenTtl: integer(env, 'ACCESS_TOKEN_TTL', 3600, 1),
    refreshTokenTtl: integer(env, 'REFRESH_TOKEN_TTL', 15_552_000, 1),
    authCodeTtl: integer(env, 'AUTH_CODE_TTL', 180, 1),
    refreshGraceSeconds: integer(env, 'REFRESH_GRACE_SECONDS', 600),
    refreshChainMaxSeconds: integer(env, 'REFRESH_CHAIN_MAX_SECONDS', 63_072_000, 1),
    rateLimitTokenPerMinute: integer(env, 'RATE_LIMIT_TOKEN_PER_MINUTE', 60, 1),
    rateLimitApiPerMinute: integer(env, 'RATE_LIMIT_API_PER_MINUTE', 1200, 1),
    clockSkewSeconds: integer(env, 'CLOCK_SKEW_SECONDS', 3),
    logLevel: logLevel(env.LOG_LEVEL || 'info'),
    dbPoolSize: integer(env, 'DB_POOL_SIZE', 10, 1),
    passwordHashCost: passwordHashCost(env),
    dbStatementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', 10_000, 1),
    revocationRefreshMs: integer(env, 'REVOCATION_REFRESH_MS', 1000, 50),
    keyRefreshMs: integer(env, 'KEY_REFRESH_MS', 1_000, 100),
    trustProxy: trustProxy(env.TRUST_PROXY),
    secretsKey: secretsKey(env.SECRETS_KEY),
    secretsKeyPrevious: previousSecretsKeys(env.SECRETS_KEY_PREVIOUS),
    ssoAllowInsecure: env.SSO_ALLOW_INSECURE === '1',
    webhookTimeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 15_000, 1),
    webhookRetrySchedule: Object.freeze(durations(env, 'WEBHOOK_RETRY_SCHEDULE', '5s,5m,30m,2h,5h,10h,14h,20h,24h')),
    webhookAllowInsecure: env.WEBHOOK_ALLOW_INSECURE === '1',
    webhookPollMs: integer(env, 'WEBHOOK_POLL_MS', 500, 50),
    changesRetentionSeconds: integer(env, 'CHANGES_RETENTION_SECONDS', 2_592_000, 1),
    requestTimeoutMs: integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 100),
    maxConnectionsPerAddress: integer(env, 'MAX_CONNECTIONS_PER_ADDRESS', 256),
  });
}
