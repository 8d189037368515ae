// Which addresses the service may call out to (webhooks, SSO providers): public unicast only, as
// ipaddr.js names the ranges — never loopback, private, link-local, carrier-grade NAT, multicast,
// reserved …. An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
import ipaddr from 'ipaddr.js';

/**
 * The range ipaddr.js gives an address (`unicast`, `loopback`, `private` …). ipaddr.js calls the
 * deprecated IPv4-compatible form (`::a.b.c.d`, RFC 4291 §2.5.5.1) unicast; some stacks still route it
 * to the IPv4 address it carries (`::127.0.0.1`, `::a9fe:a9fe`), so it is a range of its own here.
 */
export function rangeOf(address: string): string {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range();
  const ipv6 = parsed as ipaddr.IPv6;
  if (ipv6.isIPv4MappedAddress()) return ipv6.toIPv4Address().range();
  const range = ipv6.range();
  return range === 'unicast' && ipv6.parts.slice(0, 6).every((part) => part === 0) ? 'ipv4Compatible' : range;
}

export function isPublicAddress(address: string): boolean {
  return ipaddr.isValid(address) && rangeOf(address) === 'unicast';
}
