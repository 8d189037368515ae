// CSRF protection of the login form without JavaScript: a signed double-submit token. The browser
// holds a random value in an HttpOnly cookie; the form carries its HMAC under a key only the service
// knows (shared by every instance through the database). A cross-site form can neither read the
// cookie nor compute the HMAC; a planted cookie is useless without the matching field.
import { createHmac, randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { safeEqual } from '../platform/ids.ts';

const COOKIE = 'wfs_login_csrf';
const VALUE = /^[A-Za-z0-9_-]{43}$/;

export class LoginCsrf {
  readonly #key: Buffer;
  readonly #path: string;
  readonly #secure: boolean;

  readonly #cookie: string;

  /**
   * `authUrl`: the public address of the login pages (the cookie is scoped to the form's path).
   * `form`: another page's form (the console's sign-in): its path under authUrl and its own cookie.
   */
  constructor(key: Buffer, authUrl: string, form: { path: string; cookie: string } = { path: '/oauth/authorize', cookie: COOKIE }) {
    const url = new URL(authUrl);
    this.#key = key;
    this.#path = `${url.pathname.replace(/\/+$/, '')}${form.path}`;
    this.#secure = url.protocol === 'https:';
    this.#cookie = form.cookie;
  }

  #sign(value: string): string {
    return createHmac('sha256', this.#key).update(`login-csrf:${value}`).digest('base64url');
  }

  /** The hidden-field value for the form; sets the cookie unless the browser already has a good one. */
  issue(request: FastifyRequest, reply: FastifyReply): string {
    let value = request.cookies[this.#cookie];
    if (!value || !VALUE.test(value)) {
      value = randomBytes(32).toString('base64url');
      reply.setCookie(this.#cookie, value, { path: this.#path, httpOnly: true, sameSite: 'lax', secure: this.#secure, maxAge: 3600 });
    }
    return this.#sign(value);
  }

  valid(request: FastifyRequest, field: string | undefined): boolean {
    const value = request.cookies[this.#cookie];
    if (!value || !VALUE.test(value) || !field) return false;
    return safeEqual(this.#sign(value), field);
  }
}
