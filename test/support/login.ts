// The login page as a browser without JavaScript uses it: fetch the form, keep its cookie, post the
// hidden inputs back with the email and secret (form-encoded, redirects not followed), read the answer.
// Also the code exchange that follows, and the token response body the identity tests read back.
// A URL of a server answering in process is answered in process.
import type { Tenant } from './tenants.ts';
import { fetchAny } from './in-process.ts';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'" };

export function unescapeHtml(text: string): string {
  return text.replace(/&(amp|lt|gt|quot|#39|#x27);/g, (_m, name: string) => ENTITIES[name] ?? '');
}

/** An attribute of one tag, either quote style, unescaped; undefined when the tag has none. */
function attribute(tag: string, name: string): string | undefined {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)')`, 'i').exec(tag);
  const value = match?.[1] ?? match?.[2];
  return value === undefined ? undefined : unescapeHtml(value);
}

export function hiddenInputs(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [input] of html.matchAll(/<input\b[^>]*>/gi)) {
    const name = attribute(input, 'name');
    if (name && attribute(input, 'type')?.toLowerCase() === 'hidden') fields[name] = attribute(input, 'value') ?? '';
  }
  return fields;
}

export function cookiesOf(response: Response): string {
  return response.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
}

export interface LoginForm {
  response: Response;
  html: string;
  /** The form's hidden inputs, by name. */
  fields: Record<string, string>;
  /** The form's action as written ('' if it has none: the page's own address); undefined without a form. */
  action: string | undefined;
  cookie: string;
}

/** GET a login page (an authorize URL) as a browser would, sending `cookie` if it has one (and `headers`). */
export async function openLoginForm(url: string, cookie = '', headers: Record<string, string> = {}): Promise<LoginForm> {
  const response = await fetchAny(url, { redirect: 'manual', headers: { ...headers, ...(cookie ? { cookie } : {}) } });
  const html = await response.text();
  const form = /<form\b[^>]*>/i.exec(html)?.[0];
  return { response, html, fields: hiddenInputs(html), action: form === undefined ? undefined : (attribute(form, 'action') ?? ''), cookie: cookiesOf(response) || cookie };
}

/** Submits the form to `url` with the credentials; `overrides` replace (or add) fields; `headers` are added. */
export async function submitLoginForm(
  url: string | URL,
  form: LoginForm,
  credentials: { email: string; secret: string },
  overrides: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetchAny(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', ...(form.cookie ? { cookie: form.cookie } : {}) },
    body: new URLSearchParams({ ...form.fields, ...credentials, ...overrides }),
  });
}

/** The token request that exchanges an authorization code for the tenant's client; `extra` overrides. */
export function codeExchange(tenant: Tenant, code: string, extra: Record<string, string> = {}): Record<string, string> {
  return { grant_type: 'authorization_code', code, redirect_uri: tenant.redirectUri, client_id: tenant.clientId, client_secret: tenant.clientSecret, audience: 'service-api', ...extra };
}

export interface TokenBody {
  access_token: string;
  id_token: string;
  refresh_token?: string;
  token_type: string;
  expires_in: number;
  scope: string;
}
