// What the SSO routes share at run time: the context, the SecretBox, the relying party (with its
// per-instance discovery cache) and the cookie that binds a flow to the browser that started it.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../app/context.ts';
import type { SecretBox } from '../platform/sealed-secrets.ts';
import { PENDING_TTL_MS } from './pending.ts';
import { RelyingParty } from './relying-party.ts';

export const BROWSER_COOKIE = 'wfs_sso_flow';
const BINDING = /^[A-Za-z0-9_-]{43}$/;

export interface SsoRuntime {
  ctx: AppContext;
  box: SecretBox;
  rp: RelyingParty;
  /** Path and security of the flow cookie: the login page sets it, the callback reads it. */
  cookie: { path: string; secure: boolean };
}

export function ssoRuntime(ctx: AppContext, box: SecretBox): SsoRuntime {
  const authUrl = new URL(ctx.config.authUrl);
  return {
    ctx,
    box,
    rp: new RelyingParty({ allowInsecure: ctx.config.ssoAllowInsecure, redirectUri: `${ctx.config.authUrl}/oauth/sso/callback` }),
    cookie: { path: `${authUrl.pathname.replace(/\/+$/, '')}/oauth`, secure: authUrl.protocol === 'https:' },
  };
}

/** The browser's flow binding: reused when it has one, so flows in several tabs all complete. */
export function browserBinding(request: FastifyRequest, reply: FastifyReply, cookie: SsoRuntime['cookie']): string {
  const present = request.cookies[BROWSER_COOKIE];
  if (present && BINDING.test(present)) return present;
  const value = randomBytes(32).toString('base64url');
  reply.setCookie(BROWSER_COOKIE, value, { path: cookie.path, httpOnly: true, sameSite: 'lax', secure: cookie.secure, maxAge: PENDING_TTL_MS / 1000 });
  return value;
}

