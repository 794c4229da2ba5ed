import { networkInterfaces } from 'node:os';
import ipaddr from 'ipaddr.js';

/**
 * This host's own non-loopback IPv4 addresses and the first address of each one's network (where the
 * gateway usually sits): a webhook there reaches the host's own ports however public the range is.
 */
export function ownHostAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((infos) => infos ?? [])
    .filter((info) => !info.internal && info.family === 'IPv4' && info.cidr)
    .flatMap((info) => {
      const first = ipaddr.IPv4.networkAddressFromCIDR(info.cidr!).octets;
      first[3]! += 1;
      return [info.address, first.join('.')];
    });
}

/**
 * URL hosts that reach loopback, an internal network or this host in spellings a range list misses
 * (issue 23: IPv4-compatible, translated, NAT64, 6to4, documentation ranges, the host's own address
 * and gateway). Not one of them may be accepted as a receiver, loopback allowed or not.
 */
export const internalHostSpellings = (): string[] => [
  '[::127.0.0.1]',
  '[::ffff:0:127.0.0.1]',
  '[64:ff9b::127.0.0.1]',
  '[64:ff9b:1::7f00:1]',
  '[2002:7f00:1::]',
  '[2002:a9fe:a9fe::]',
  '192.0.2.1',
  '203.0.113.7',
  '[2001:db8::1]',
  ...ownHostAddresses(),
];
