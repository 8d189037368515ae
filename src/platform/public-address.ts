// Which addresses the service may call out to (webhooks, SSO providers): public unicast only, as
// ipaddr.js names the ranges — never loopback, private, link-local, carrier-grade NAT, multicast,
// reserved …. An IPv4-mapped IPv6 address is judged as the IPv4 address it carries.
import ipaddr from 'ipaddr.js';

/** The range ipaddr.js gives an address (`unicast`, `loopback`, `private` …). */
export function rangeOf(address: string): string {
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) return (parsed as ipaddr.IPv6).toIPv4Address().range();
  return parsed.range();
}

export function isPublicAddress(address: string): boolean {
  return ipaddr.isValid(address) && rangeOf(address) === 'unicast';
}
