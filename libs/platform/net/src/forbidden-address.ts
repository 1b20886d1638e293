import ipaddr from 'ipaddr.js';

const { IPv4, IPv6 } = ipaddr;
type Address = ipaddr.IPv4 | ipaddr.IPv6;

// The only IPv6 space allocated for global unicast; everything outside it (::/8 with its
// deprecated IPv4-compatible form ::a.b.c.d, fc00::/7, fe80::/10, ff00::/8, ...) is never a
// public receiver. ipaddr.js calls some of those 'unicast', so this is checked first.
const GLOBAL_UNICAST_V6 = IPv6.parseCIDR('2000::/3');
// RFC 6052 well-known NAT64 prefix: the last 32 bits are the IPv4 destination. Allowed only
// when that IPv4 is public, since DNS64 networks answer every IPv4-only name this way.
const NAT64_WELL_KNOWN = IPv6.parseCIDR('64:ff9b::/96');

/**
 * The name of the forbidden range `address` falls in, or null when it is a public unicast
 * address a webhook may be delivered to. IPv4-mapped IPv6 is judged as its IPv4; 6to4,
 * Teredo and NAT64 addresses as the IPv4 they carry. Anything unparseable is 'invalid'.
 */
export function isForbiddenAddress(address: string): string | null {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  // Strict parse only: the URL parser has already normalised literal hosts, and resolvers
  // return canonical forms; the lenient forms (0x7f.1) must not reach here unnoticed.
  if (!IPv4.isValidFourPartDecimal(bare) && !IPv6.isValid(bare)) return 'invalid';
  return forbiddenRange(ipaddr.process(bare));
}

function forbiddenRange(addr: Address): string | null {
  if (addr.kind() === 'ipv4') {
    const range = addr.range();
    return range === 'unicast' ? null : range;
  }
  const v6 = addr as ipaddr.IPv6;
  if (v6.match(NAT64_WELL_KNOWN)) return embeddedRange(v6.parts[6], v6.parts[7]);
  if (!v6.match(GLOBAL_UNICAST_V6)) return v6.range() === 'unicast' ? 'reserved' : v6.range();
  const range = v6.range();
  if (range === '6to4') return embeddedRange(v6.parts[1], v6.parts[2]);
  if (range === 'teredo') {
    // 2001:0:<server IPv4>:<flags>:<port>:<client IPv4 xor ffff:ffff>; the packet ends at the client.
    return embeddedRange(v6.parts[2], v6.parts[3]) ?? embeddedRange(v6.parts[6] ^ 0xffff, v6.parts[7] ^ 0xffff);
  }
  return range === 'unicast' ? null : range;
}

function embeddedRange(high: number, low: number): string | null {
  return forbiddenRange(new IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]));
}
