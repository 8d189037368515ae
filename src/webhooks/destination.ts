// Where a webhook may go (CONTRACT §7): an absolute https URL without credentials or fragment, whose
// host passes the outbound check every tenant-chosen destination passes (src/platform/
// outbound-destination.ts: public unicast addresses only, every address of a name checked, one message
// for every refused name). The check runs when an endpoint is created or changed, and again on every
// delivery: the sender resolves and checks the name itself and connects to an address it checked
// (`pinnedLookup`), so DNS rebinding is refused at delivery. WEBHOOK_ALLOW_INSECURE=1 lifts both rules
// for development and tests.
import { hostOf, resolvePublic, type OutboundPolicy } from '../platform/outbound-destination.ts';

export type DestinationPolicy = OutboundPolicy;

/** A URL of the wrong form (`invalid_webhook_url`); `message` says what is wrong with it. */
export class InvalidWebhookUrl extends Error {}

/** Checks the URL's form: absolute, https (or http when insecure is allowed), no credentials. */
export function parseDestination(raw: string, policy: DestinationPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new InvalidWebhookUrl('must be an absolute URL');
  }
  const schemes = policy.allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw new InvalidWebhookUrl('must be an https URL');
  if (url.username || url.password) throw new InvalidWebhookUrl('must not carry a user name or password');
  if (url.hash) throw new InvalidWebhookUrl('must not carry a fragment');
  return url;
}

/** Checks a URL for an endpoint being created or changed; answers it normalised. */
export async function checkDestination(raw: string, policy: DestinationPolicy): Promise<string> {
  const url = parseDestination(raw, policy);
  await resolvePublic(hostOf(url), policy);
  return url.toString();
}
