// What the SSO routes share at run time: what they need of the context, the SecretBox, the relying party (with its
// per-instance discovery cache) and the cookie that binds a flow to the browser that started it.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Clock } from '../platform/clock.ts';
import type { Config } from '../platform/config.ts';
import type { Db } from '../platform/db/database.ts';
import type { SecretBox } from '../platform/sealed-secrets.ts';
import { originCookie, type OriginCookie } from '../platform/origin-cookie.ts';
import { PENDING_TTL_MS } from './pending.ts';
import { RelyingParty } from './relying-party.ts';

export const BROWSER_COOKIE = 'wfs_sso_flow';
const BINDING = /^[A-Za-z0-9_-]{43}$/;

/** What single sign-on needs of the context (src/app/feature-options.ts builds it). */
export interface SsoDeps {
  readonly db: Db;
  /** The app's clock: pending sign-ins, links, codes and audit entries are dated by it, as the token endpoint redeems by it. */
  readonly clock: Clock;
  readonly config: Pick<Config, 'authUrl' | 'issuer' | 'authCodeTtl' | 'adminToken' | 'ssoAllowInsecure'>;
}

export interface SsoRuntime {
  deps: SsoDeps;
  box: SecretBox;
  rp: RelyingParty;
  /** The flow cookie (name, path, security): the login page sets it, the callback reads it. */
  cookie: OriginCookie;
}

export function ssoRuntime(deps: SsoDeps, box: SecretBox): SsoRuntime {
  return {
    deps,
    box,
    rp: new RelyingParty({ allowInsecure: deps.config.ssoAllowInsecure, redirectUri: `${deps.config.authUrl}/oauth/sso/callback`, clock: deps.clock }),
    cookie: originCookie(BROWSER_COOKIE, deps.config.authUrl, '/oauth'),
  };
}

/** The browser's flow binding: reused when it has one, so flows in several tabs all complete. */
export function browserBinding(request: FastifyRequest, reply: FastifyReply, cookie: SsoRuntime['cookie']): string {
  const present = request.cookies[cookie.name];
  if (present && BINDING.test(present)) return present;
  const value = randomBytes(32).toString('base64url');
  reply.setCookie(cookie.name, value, { path: cookie.path, httpOnly: true, sameSite: 'lax', secure: cookie.secure, maxAge: PENDING_TTL_MS / 1000 });
  return value;
}

