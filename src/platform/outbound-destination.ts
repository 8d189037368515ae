// Where the service may connect when a tenant chose the host (webhook endpoints, SSO providers): only
// public unicast addresses (public-address.ts). A host name is resolved here and every address it has
// is checked (one bad address refuses the name: a resolver may hand out any of them next time); the
// connection then goes to an address checked (`pinnedLookup`), so a name that pointed somewhere public
// when checked and points at the service's own network a moment later (DNS rebinding) is never reached.
//
// Names are resolved with c-ares (dns.promises.Resolver, A and AAAA, a time limit), not dns.lookup:
// lookup is getaddrinfo on libuv's thread pool, the four threads scrypt logins and zlib share, so slow
// answers for tenant-chosen names would queue sign-ins behind them. So /etc/hosts is not read; the
// names RFC 6761 reserves for loopback (`localhost`, `*.localhost`) are answered as loopback here.
// Under allowInsecure only, a name c-ares finds nothing for is asked of the OS resolver (dns.lookup):
// development setups name the host in /etc/hosts (docker `extra_hosts`, `host.docker.internal`), and
// no address is checked then anyway; search domains are then the OS's too.
//
// Resolution runs under the caller's signal (its deadline): a resolver that does not answer ends the
// call when the signal does, with the signal's reason, not after the resolver's own time limit.
//
// A refused host name is told in one message whatever the reason (it does not resolve, or resolves to
// an address that is not public): two would let any tenant probe which internal names exist. The
// reason is kept on the error for the server log. An address literal is named with its range (the
// tenant typed it).
import { lookup, Resolver } from 'node:dns/promises';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress, rangeOf } from './public-address.ts';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** A name's addresses (empty when it has none); rejects when the name cannot be resolved. `signal` ends the asking. */
export type HostResolver = (host: string, signal?: AbortSignal) => Promise<ResolvedAddress[]>;

export interface OutboundPolicy {
  /** Development and tests: any address (WEBHOOK_ALLOW_INSECURE, SSO_ALLOW_INSECURE). */
  allowInsecure: boolean;
  /** Tests hand one asking their own DNS server; otherwise the system's name servers. */
  resolver?: HostResolver;
  /** Asked under allowInsecure when `resolver` finds nothing (default: the OS's, dns.lookup); tests hand their own. */
  insecureFallback?: HostResolver;
  /** Ends resolution (the caller's deadline): resolvePublic then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A destination the service does not connect to; `message` is safe to show to the tenant. */
export class DestinationRefused extends Error {
  /** Why, for the server log only. */
  readonly logDetail: string;

  constructor(message: string, logDetail: string = message) {
    super(message);
    this.logDetail = logDetail;
  }
}

/** How long a name may take to resolve (both families at once), in all. */
const RESOLVE_TIMEOUT_MS = 5_000;

/** A c-ares resolver of A and AAAA records; `servers` as dns.setServers takes them (default: the system's). */
export function dnsResolver(servers?: string[]): HostResolver {
  return async (host, signal) => {
    const resolver = new Resolver({ timeout: 2_000, tries: 2 });
    if (servers) resolver.setServers(servers);
    const cancel = () => resolver.cancel();
    const timer = setTimeout(cancel, RESOLVE_TIMEOUT_MS);
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
      const addresses = [
        ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
        ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
      ];
      if (addresses.length === 0 && v4.status === 'rejected') throw v4.reason;
      return addresses;
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
    }
  };
}

const systemResolver = dnsResolver();

/** The OS resolver (getaddrinfo: /etc/hosts, search domains), for allowInsecure only (see above). */
const osResolver: HostResolver = async (host) => (await lookup(host, { all: true })).map(({ address, family }) => ({ address, family }));

const LOOPBACK: readonly ResolvedAddress[] = Object.freeze([{ address: '127.0.0.1', family: 4 }, { address: '::1', family: 6 }].map((entry) => Object.freeze(entry)));

/** `localhost` and names under it (RFC 6761 §6.3), with or without the root's trailing dot. */
function isLoopbackName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost');
}

/** The host as a resolver wants it: an IPv6 literal without its brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** `work` unless `signal` ends first: then its reason (what was asked meanwhile is not waited for). */
function unlessAborted<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** The name's addresses from c-ares; under allowInsecure, from the OS resolver when c-ares finds none. */
async function addressesOf(host: string, policy: OutboundPolicy): Promise<ResolvedAddress[]> {
  if (isLoopbackName(host)) return [...LOOPBACK];
  const resolve = policy.resolver ?? systemResolver;
  if (!policy.allowInsecure) return resolve(host, policy.signal);
  const found = await resolve(host, policy.signal).catch(() => []);
  return found.length > 0 ? found : (policy.insecureFallback ?? osResolver)(host, policy.signal);
}

function notPublicName(host: string, logDetail: string): DestinationRefused {
  return new DestinationRefused(`${host} does not resolve to a public address`, `${host}: ${logDetail}`);
}

/** Resolves `host` (a name or an address literal) and checks every address; answers them, to connect to. */
export async function resolvePublic(host: string, policy: OutboundPolicy): Promise<ResolvedAddress[]> {
  policy.signal?.throwIfAborted();
  const family = isIP(host);
  if (family !== 0) {
    if (!policy.allowInsecure && !isPublicAddress(host)) throw new DestinationRefused(`${host} is a ${rangeOf(host)} address`);
    return [{ address: host, family }];
  }
  let addresses: ResolvedAddress[];
  try {
    addresses = await unlessAborted(addressesOf(host, policy), policy.signal);
  } catch (error) {
    if (policy.signal?.aborted) throw policy.signal.reason;
    throw notPublicName(host, `does not resolve (${(error as { code?: string }).code ?? (error as Error).message})`);
  }
  if (addresses.length === 0) throw notPublicName(host, 'has no address');
  if (!policy.allowInsecure) {
    const refused = addresses.find((entry) => !isPublicAddress(entry.address));
    if (refused) throw notPublicName(host, `resolves to ${refused.address} (${rangeOf(refused.address)})`);
  }
  return addresses;
}

/** A `lookup` for http(s).request that answers only `addresses` (checked by resolvePublic). */
export function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
    if (options.all) {
      callback(null, [...wanted]);
      return;
    }
    const first = wanted[0];
    if (first) callback(null, first.address, first.family);
    else callback(Object.assign(new DestinationRefused(`${hostname} has no address of the family asked for`), { code: 'ENOTFOUND' }), '', 0);
  };
}
