// CSRF protection of the login form without JavaScript: a signed double-submit token. The browser
// holds a random value in an HttpOnly cookie; the form carries its HMAC under a key only the service
// knows (shared by every instance through the database). A cross-site form can neither read the
// cookie nor compute the HMAC; a planted cookie is useless without the matching field.
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { safeEqual } from '../platform/ids.ts';
import { originCookie, type OriginCookie } from '../platform/origin-cookie.ts';

const COOKIE = 'wfs_login_csrf';
const VALUE = /^[A-Za-z0-9_-]{43}$/;

export class LoginCsrf {
  readonly #key: Buffer;
  readonly #cookie: OriginCookie;

  /**
   * `authUrl`: the public address of the login pages (over http the cookie is scoped to the form's path).
   * `form`: another page's form (the console's sign-in): its path under authUrl and its own cookie.
   */
  constructor(key: Buffer, authUrl: string, form: { path: string; cookie: string } = { path: '/oauth/authorize', cookie: COOKIE }) {
    this.#key = key;
    this.#cookie = originCookie(form.cookie, authUrl, form.path);
  }

  #sign(value: string): string {
    return createHmac('sha256', this.#key).update(`login-csrf:${value}`).digest('base64url');
  }

  /** The hidden-field value for the form; sets the cookie unless the browser already has a good one. */
  issue(request: FastifyRequest, reply: FastifyReply): string {
    const { name, path, secure } = this.#cookie;
    let value = request.cookies[name];
    if (!value || !VALUE.test(value)) {
      value = randomBytes(32).toString('base64url');
      reply.setCookie(name, value, { path, httpOnly: true, sameSite: 'lax', secure, maxAge: 3600 });
    }
    return this.#sign(value);
  }

  valid(request: FastifyRequest, field: string | undefined): boolean {
    const value = request.cookies[this.#cookie.name];
    if (!value || !VALUE.test(value) || !field) return false;
    return safeEqual(this.#sign(value), field);
  }
}
