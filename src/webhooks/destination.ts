// Where a webhook may go (CONTRACT §7): https only, and never to an address of the service's own
// network: loopback, private, link-local, carrier-grade NAT, multicast, reserved … — only public
// unicast addresses pass (ipaddr.js names the range). The check runs when an endpoint is created or
// changed, and again on every connection: the sender resolves the name itself, checks every address
// and connects to the one it checked (see `checkedLookup`), so a name that resolves to a public
// address at creation and to 127.0.0.1 later (DNS rebinding) is refused at delivery.
// WEBHOOK_ALLOW_INSECURE=1 lifts both rules for development and tests.
import { lookup } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress, rangeOf } from '../platform/public-address.ts';

export interface DestinationPolicy {
  allowInsecure: boolean;
}

/** Why a destination is refused; `message` is safe to show to the company and to store in the delivery log. */
export class DestinationRefused extends Error {
  readonly reason: 'invalid_url' | 'refused_address' | 'unresolvable';

  constructor(reason: DestinationRefused['reason'], message: string) {
    super(message);
    this.reason = reason;
  }
}

/**
 * An address literal is named with its range (the company typed it). A host name is not followed by
 * the address it resolved to: the answer would map the service's own network for any API token
 * holder (`db.internal (10.0.3.7) is a private address`).
 */
function refusedAddress(host: string, address: string): DestinationRefused {
  const what = host === address ? `${address} is a ${rangeOf(address)} address` : `${host} resolves to an address that is not public`;
  return new DestinationRefused('refused_address', `${what}; webhooks go only to public addresses`);
}

/** Checks the URL's form: absolute, https (or http when insecure is allowed), no credentials. */
export function parseDestination(raw: string, policy: DestinationPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefused('invalid_url', 'must be an absolute URL');
  }
  const schemes = policy.allowInsecure ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw new DestinationRefused('invalid_url', 'must be an https URL');
  if (url.username || url.password) throw new DestinationRefused('invalid_url', 'must not carry a user name or password');
  if (url.hash) throw new DestinationRefused('invalid_url', 'must not carry a fragment');
  return url;
}

/** The host as the resolver wants it: IPv6 literals without their brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Resolves `host` and checks every address it has; answers the addresses (first one to connect to). */
export async function resolveChecked(host: string, policy: DestinationPolicy): Promise<{ address: string; family: number }[]> {
  if (isIP(host)) {
    if (!policy.allowInsecure && !isPublicAddress(host)) throw refusedAddress(host, host);
    return [{ address: host, family: isIP(host) }];
  }
  let addresses: { address: string; family: number }[];
  try {
    addresses = await lookup(host, { all: true, verbatim: true });
  } catch {
    throw new DestinationRefused('unresolvable', `${host} does not resolve`);
  }
  if (addresses.length === 0) throw new DestinationRefused('unresolvable', `${host} does not resolve`);
  if (!policy.allowInsecure) {
    // One bad address refuses the name: a resolver may hand out any of them on the next try.
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused) throw refusedAddress(host, refused.address);
  }
  return addresses;
}

/** Checks a URL for an endpoint being created or changed; answers it normalised. */
export async function checkDestination(raw: string, policy: DestinationPolicy): Promise<string> {
  const url = parseDestination(raw, policy);
  await resolveChecked(hostOf(url), policy);
  return url.toString();
}

/**
 * A `lookup` for http(s).request: the socket connects only to an address this function checked, so
 * what was checked is what is reached. Failures surface as the request's error (a DestinationRefused).
 */
export function checkedLookup(policy: DestinationPolicy): LookupFunction {
  return (hostname, options, callback) => {
    resolveChecked(hostname, policy).then(
      (addresses) => {
        const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
        if (options.all) {
          callback(null, wanted);
          return;
        }
        const first = wanted[0];
        if (first) callback(null, first.address, first.family);
        else callback(Object.assign(new DestinationRefused('unresolvable', `${hostname} has no address of the family asked for`), { code: 'ENOTFOUND' }), '', 0);
      },
      (error: Error) => callback(Object.assign(error, { code: 'ENOTFOUND' }), '', 0),
    );
  };
}
