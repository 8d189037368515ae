// The login page's extension point for single sign-on (CONTRACT §8). The identity feature does not
// know any provider: the composition layer hands it a LoginFederation (src/sso builds one), which
// decides per client whether the page is identifier-first, where an email goes, and adds its own
// routes (the provider's callback) beside the login page, sharing its throttle.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../platform/http.ts';
import type { AuthorizationRequest } from './authorize-request.ts';
import type { OAuthClient } from './clients.ts';
import type { Throttle } from './throttle.ts';

export interface FederatedLogin {
  /** The client has the `sso` grant: the page asks for the email first. */
  identifierFirst: boolean;
  /** False when the organisation enforces SSO: the API User's secret does not sign in. */
  secretAllowed: boolean;
  /** Origins the page's form may lead to (the providers' sign-in pages), for CSP form-action. */
  formTargets: string[];
}

/** Where an email is routed: to its provider (the browser is redirected), or to the secret form. */
export type EmailRoute = { to: 'provider'; url: string } | { to: 'secret' } | { to: 'refused'; status: number; message: string };

export interface LoginFederation {
  forClient(client: OAuthClient): Promise<FederatedLogin>;
  /** Called for the identifier step; may set a cookie on `reply` (the flow's browser binding). */
  route(request: FastifyRequest, reply: FastifyReply, auth: AuthorizationRequest, email: string): Promise<EmailRoute>;
  /** Registers the federation's own routes (the provider's callback) with the login page's throttle. */
  readonly routes: (app: App, options: { throttle: Throttle }) => Promise<void>;
}

/** What a client without SSO gets: the classic email-and-secret form. */
export const NO_FEDERATION: FederatedLogin = { identifierFirst: false, secretAllowed: true, formTargets: [] };
