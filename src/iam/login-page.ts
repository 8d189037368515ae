// The server-rendered login form. It works without JavaScript: the authorization request travels in
// hidden inputs, the CSRF token in a hidden input beside its cookie.
import { escapeHtml, htmlPage } from '../platform/http.ts';

export interface LoginForm {
  action: string;
  clientName: string;
  carried: Record<string, string>;
  csrfToken: string;
  email?: string;
  message?: string;
}

export const CSRF_FIELD = 'csrf_token';

export function hidden(name: string, value: string): string {
  return `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`;
}

export function loginPage(form: LoginForm): string {
  const carried = Object.entries(form.carried).map(([name, value]) => hidden(name, value)).join('');
  const message = form.message ? `<p class="error" role="alert">${escapeHtml(form.message)}</p>` : '';
  return htmlPage(
    'Sign in',
    `<h1>Sign in</h1>
<p>Sign in with the API User of <strong>${escapeHtml(form.clientName)}</strong>.</p>
${message}
<form method="post" action="${escapeHtml(form.action)}">
${carried}${hidden(CSRF_FIELD, form.csrfToken)}
<label for="email">Email</label>
<input id="email" name="email" type="text" inputmode="email" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeHtml(form.email ?? '')}">
<label for="secret">Secret</label>
<input id="secret" name="secret" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>`,
  );
}
