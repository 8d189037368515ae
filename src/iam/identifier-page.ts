// The identifier-first login page (CONTRACT §8) for clients with the `sso` grant: the person types an
// email and continues; its domain decides between the organisation's provider and the secret form.
// Like the secret form it works without JavaScript.
import { escapeHtml, htmlPage } from '../platform/http.ts';
import { CSRF_FIELD, hidden, type LoginForm } from './login-page.ts';

export interface IdentifierForm extends LoginForm {
  /** The secret form for the same request; absent when the organisation enforces SSO. */
  secretFormUrl?: string;
}

export function identifierPage(form: IdentifierForm): string {
  const carried = Object.entries(form.carried).map(([name, value]) => hidden(name, value)).join('');
  const message = form.message ? `<p class="error" role="alert">${escapeHtml(form.message)}</p>` : '';
  const secretLink = form.secretFormUrl ? `<p><a href="${escapeHtml(form.secretFormUrl)}">Sign in with the API User's secret instead</a></p>` : '';
  return htmlPage(
    'Sign in',
    `<h1>Sign in</h1>
<p>Sign in with the API User of <strong>${escapeHtml(form.clientName)}</strong>. Enter its email: if your organisation signs you in through its own identity provider, you continue there.</p>
${message}
<form method="post" action="${escapeHtml(form.action)}">
${carried}${hidden(CSRF_FIELD, form.csrfToken)}
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" autocapitalize="none" spellcheck="false" required value="${escapeHtml(form.email ?? '')}">
<button type="submit">Continue</button>
</form>
${secretLink}`,
  );
}
