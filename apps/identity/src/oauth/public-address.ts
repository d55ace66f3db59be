import { BlockList, isIP } from 'node:net';

// Which addresses the authorization server may open a connection to when it fetches a document a
// client named (SSRF): only globally routed unicast ones. Everything a request could use to reach
// this host, its network or anything special is refused, whatever form the address was written in
// (the URL parser and the resolver hand us canonical forms; IPv4 inside IPv6 is checked as IPv4).

const NON_PUBLIC_V4: [string, number][] = [
  ['0.0.0.0', 8], // "this network"; 0.0.0.0 connects to this host
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24],
  ['192.88.99.0', 24], // 6to4 relays
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

// IPv6 is allowed only inside 2000::/3 (global unicast), and not in these parts of it.
const NON_PUBLIC_V6_IN_GLOBAL: [string, number][] = [
  ['2001::', 23], // IETF protocol assignments (Teredo, ORCHID, ...)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4: an IPv4 address inside, possibly a private one
  ['3fff::', 20], // documentation
];

const nonPublic = new BlockList();
for (const [net, prefix] of NON_PUBLIC_V4) nonPublic.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of NON_PUBLIC_V6_IN_GLOBAL) nonPublic.addSubnet(net, prefix, 'ipv6');
const globalUnicast = new BlockList();
globalUnicast.addSubnet('2000::', 3, 'ipv6');

/** The IPv4 address an IPv6 one carries (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::/96), if any. */
function embeddedIPv4(address: string): string | undefined {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

/** True only for a globally routed unicast address (an IP literal; anything else is false). */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[(.*)\]$/, '$1').split('%')[0]!;
  const family = isIP(bare);
  if (family === 4) return !nonPublic.check(bare, 'ipv4');
  if (family !== 6) return false;
  const inner = embeddedIPv4(bare);
  if (inner !== undefined) return isPublicAddress(inner);
  return globalUnicast.check(bare, 'ipv6') && !nonPublic.check(bare, 'ipv6');
}
