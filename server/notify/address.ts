import { BlockList, isIP } from 'node:net';

// Where notifications may go. A notify_url is the merchant's, but the request comes from
// inside our network: without this, it could reach our own services (SSRF).

const refused = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  refused.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible addresses
  ['64:ff9b::', 96], // NAT64: reaches any IPv4 address, private ones too
  ['64:ff9b:1::', 48], // NAT64 for local use (RFC 8215): a translator inside some network
  // Tunnels that carry an IPv4 address in the IPv6 one. Refused whole, not only when the
  // carried address is private: both are deprecated, and the relay a packet takes is not ours.
  ['2002::', 16], // 6to4 (RFC 7526)
  ['2001::', 32], // Teredo (RFC 4380): the client's IPv4 address, obfuscated, in the last 32 bits
  ['fec0::', 10], // site-local (deprecated, still routed inside some networks)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  refused.addSubnet(net, prefix, 'ipv6');
}

/** True for an IP address a notification may be sent to. BlockList checks IPv4-mapped IPv6 (::ffff:a.b.c.d) against the IPv4 rules. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return !refused.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * What can be refused without DNS when a notify_url is given: a private or loopback IP
 * literal, or a localhost name. Names are checked again, resolved, on every delivery.
 */
export function refusedNotifyUrl(url: string): string | null {
  // A trailing dot is the same name, fully qualified: `localhost.` is localhost.
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase().replace(/\.+$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return 'must not point to localhost';
  if (isIP(host) && !isPublicAddress(host)) return 'must not point to a private, loopback or link-local address';
  return null;
}
