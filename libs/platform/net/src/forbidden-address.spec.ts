import { describe, expect, it } from 'vitest';
import { isForbiddenAddress } from './forbidden-address.js';

describe('isForbiddenAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'], // cloud metadata
    ['fe80::1', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['fd00::1', 'uniqueLocal'],
    ['fd00:ec2::254', 'uniqueLocal'], // AWS IPv6 metadata
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    // IPv4-mapped, and IPv6 forms that carry an IPv4 address, are judged by that address
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['2002:7f00:1::', 'loopback'], // 6to4 of 127.0.0.1
    ['2002:a00:1::1', 'private'], // 6to4 of 10.0.0.1
    ['64:ff9b::a00:1', 'private'], // NAT64 of 10.0.0.1
    ['64:ff9b::169.254.169.254', 'linkLocal'],
    ['2001:0:a00:1::1', 'private'], // Teredo via server 10.0.0.1
    ['2001:0:5db8:d822::80ff:fffe', 'loopback'], // Teredo to client 127.0.0.1 (stored xor ffff:ffff)
    // outside 2000::/3 there is no public receiver, whatever ipaddr.js calls it
    ['::7f00:1', 'reserved'], // deprecated IPv4-compatible ::127.0.0.1
    ['::ffff:0:7f00:1', 'rfc6145'],
    ['64:ff9b:1::1', 'rfc6052'], // local-use NAT64 prefix
    ['fec0::1', 'deprecatedSiteLocal'],
    ['100::1', 'discard'],
    // not an address in canonical form: refused rather than guessed
    ['0x7f.0.0.1', 'invalid'],
    ['0177.0.0.1', 'invalid'],
    ['2130706433', 'invalid'],
    ['example.com', 'invalid'],
    ['', 'invalid'],
  ])('%s is forbidden (%s)', (address, range) => {
    expect(isForbiddenAddress(address)).toBe(range);
  });

  it.each([
    '93.184.216.34',
    '1.1.1.1',
    '8.8.8.8',
    '2606:4700::1111',
    '[2606:4700::1111]',
    '2a00:1450:4001:80b::200e',
    '::ffff:93.184.216.34', // mapped public
    '64:ff9b::5db8:d822', // NAT64 of 93.184.216.34 (DNS64 networks)
    '2002:5db8:d822::1', // 6to4 of 93.184.216.34
    '2001:0:5db8:d822::a247:27dd', // Teredo, server and client 93.184.216.34
  ])('%s is public', (address) => {
    expect(isForbiddenAddress(address)).toBeNull();
  });
});
