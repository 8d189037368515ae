// Why an issuer's discovery document could not be used, as a category the customer's admin reads in
// the console: could not connect, timed out, a TLS certificate problem, an HTTP status, not a valid
// discovery document, another issuer, or a destination the outbound check refuses. Never an address,
// a port or an errno name (the security review saw `connect EHOSTUNREACH <address>:443` there): the
// full detail is for the operator (`wfs`, the operator API) and the log.
import { OutboundRefused, OutboundTimeout } from './outbound.ts';

export type DiscoveryCategory = 'could_not_connect' | 'timed_out' | 'tls_certificate' | 'http_status' | 'invalid_document' | 'issuer_mismatch' | 'refused_destination';

export interface DiscoveryProblem {
  category: DiscoveryCategory;
  /** What the admin reads after "Issuer" (a field error of `/issuer`). */
  text: string;
}

const COULD_NOT_CONNECT: DiscoveryProblem = { category: 'could_not_connect', text: 'could not be reached: the connection to it failed' };
const TIMED_OUT: DiscoveryProblem = { category: 'timed_out', text: 'could not be reached: it did not answer in time' };
const TLS_CERTIFICATE: DiscoveryProblem = { category: 'tls_certificate', text: 'could not be reached securely: its TLS certificate (or TLS connection) was not accepted' };
const INVALID_DOCUMENT: DiscoveryProblem = { category: 'invalid_document', text: 'does not serve a valid OpenID discovery document' };
const ISSUER_MISMATCH: DiscoveryProblem = { category: 'issuer_mismatch', text: 'serves a discovery document that names another issuer (enter the issuer exactly as the document spells it)' };
const REFUSED_DESTINATION: DiscoveryProblem = { category: 'refused_destination', text: 'is not an address this service calls (only public addresses, over https)' };

const TIMEOUT_CODES = /^(ETIMEDOUT|UND_ERR_CONNECT_TIMEOUT|OAUTH_TIMEOUT)$/;
const TLS_CODES = /CERT|SSL|TLS|UNABLE_TO_|^EPROTO$/;
/** Any other system error (ECONNREFUSED, EHOSTUNREACH, ENOTFOUND, EAI_AGAIN …) or a socket closed early. */
const CONNECT_CODES = /^(E[A-Z]+|UND_ERR_SOCKET)$/;

function codeOf(link: unknown): string {
  const code = (link as { code?: unknown }).code;
  return typeof code === 'string' ? code : '';
}

/** The category one link of the cause chain names, if any. */
function categoryOf(link: unknown): DiscoveryProblem | undefined {
  if (link instanceof OutboundRefused) return REFUSED_DESTINATION;
  if (link instanceof OutboundTimeout || (link instanceof Error && link.name === 'TimeoutError')) return TIMED_OUT;
  // openid-client gives the Response itself as the cause of an unexpected status (or content type).
  if (link instanceof Response) return link.status === 200 ? INVALID_DOCUMENT : { category: 'http_status', text: `answered HTTP ${link.status} instead of its discovery document` };
  const code = codeOf(link);
  if (code === 'OAUTH_JSON_ATTRIBUTE_COMPARISON_FAILED') return ISSUER_MISMATCH;
  if (TIMEOUT_CODES.test(code)) return TIMED_OUT;
  if (TLS_CODES.test(code)) return TLS_CERTIFICATE;
  if (CONNECT_CODES.test(code)) return COULD_NOT_CONNECT;
  return undefined;
}

/** The category of a failed discovery, from the outermost error of its cause chain inwards. */
export function discoveryProblem(error: unknown): DiscoveryProblem {
  for (let link = error, depth = 0; link !== null && typeof link === 'object' && depth < 6; link = (link as { cause?: unknown }).cause, depth++) {
    const problem = categoryOf(link);
    if (problem) return problem;
  }
  return INVALID_DOCUMENT;
}
