import type { NetworkInterfaceInfo } from 'node:os';
import ipaddr from 'ipaddr.js';

/**
 * Which IP addresses a webhook may not be delivered to. Parsing and prefix matching are ipaddr.js's;
 * the ranges are ours, listed here rather than taken from ipaddr.js's range names, which miss some
 * (local-use NAT64, the IPv4-translated form, metadata addresses) and lump others together.
 */
type Ip = ipaddr.IPv4 | ipaddr.IPv6;
type Network = [Ip, number];

export type AddressClass = { kind: 'public' } | { kind: 'loopback' } | { kind: 'internal'; what: string };

const ranges = (list: [cidr: string, what: string][]) =>
  list.map(([cidr, what]) => ({ network: ipaddr.parseCIDR(cidr), what }));

/** Checked in order: the first match names the refusal. */
const INTERNAL_IPV4 = ranges([
  ['169.254.169.254/32', 'a cloud metadata address'],
  ['0.0.0.0/8', 'an unspecified ("this network") address'],
  ['10.0.0.0/8', 'a private (RFC 1918) address'],
  ['172.16.0.0/12', 'a private (RFC 1918) address'],
  ['192.168.0.0/16', 'a private (RFC 1918) address'],
  ['100.64.0.0/10', 'a carrier-grade NAT (RFC 6598) address'],
  ['169.254.0.0/16', 'a link-local address'],
  ['192.0.0.0/24', 'an IETF protocol assignment address'],
  ['192.0.2.0/24', 'a documentation address'],
  ['198.51.100.0/24', 'a documentation address'],
  ['203.0.113.0/24', 'a documentation address'],
  ['192.88.99.0/24', 'a 6to4 relay address'],
  ['198.18.0.0/15', 'a benchmarking address'],
  ['224.0.0.0/4', 'a multicast address'],
  ['240.0.0.0/4', 'a reserved address'],
]);

const INTERNAL_IPV6 = ranges([
  ['fd00:ec2::254/128', 'a cloud metadata address'],
  // Holds :: and every IPv4-compatible address (::a.b.c.d, deprecated by RFC 4291): never a receiver.
  ['::/96', 'an unspecified or IPv4-compatible address'],
  ['64:ff9b:1::/48', 'a local-use NAT64 address'],
  ['100::/64', 'a discard-only address'],
  ['2001::/32', 'a Teredo address'],
  ['2001:db8::/32', 'a documentation address'],
  ['fc00::/7', 'a unique local (ULA) address'],
  ['fe80::/10', 'a link-local address'],
  ['fec0::/10', 'a site-local address'],
  ['ff00::/8', 'a multicast address'],
]);

/**
 * IPv6 forms that carry an IPv4 address in their last 32 bits (6to4: bits 16–47) and reach it: each
 * is judged as the IPv4 address it carries. Only the mapped form reaches this host's loopback.
 */
const IPV4_CARRIERS = [
  { network: ipaddr.parseCIDR('::ffff:0:0/96'), form: 'IPv4-mapped', part: 6, reachesLoopback: true },
  { network: ipaddr.parseCIDR('::ffff:0:0:0/96'), form: 'IPv4-translated', part: 6, reachesLoopback: false },
  { network: ipaddr.parseCIDR('64:ff9b::/96'), form: 'NAT64', part: 6, reachesLoopback: false },
  { network: ipaddr.parseCIDR('2002::/16'), form: '6to4', part: 1, reachesLoopback: false },
];

const LOOPBACK: Network[] = [ipaddr.parseCIDR('127.0.0.0/8'), ipaddr.parseCIDR('::1/128')];

const within = (ip: Ip, [net, bits]: Network) =>
  ip.kind() === net.kind() && (ip as ipaddr.IPv4).match(net as ipaddr.IPv4, bits);

/** The IPv4 address in the two 16-bit parts of `ip` from `part` on. */
const carried = (ip: ipaddr.IPv6, part: number) => {
  const [hi, lo] = [ip.parts[part]!, ip.parts[part + 1]!];
  return new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);
};

/**
 * The networks of this host's own interfaces (loopback aside, which has its own rule) and its
 * gateways: the host's addresses, its gateways and its neighbours are internal however public their
 * range looks.
 */
export function hostNetworks(
  interfaces: NodeJS.Dict<NetworkInterfaceInfo[]>,
  gateways: string[] = [],
): Network[] {
  const parsed = (read: () => Network): Network[] => {
    try {
      return [read()];
    } catch {
      return []; // A form ipaddr.js does not read (a zone id): the fixed ranges still apply.
    }
  };
  const networks = Object.values(interfaces)
    .flatMap((infos) => infos ?? [])
    .filter((info) => !info.internal && info.cidr)
    .flatMap((info) => parsed(() => ipaddr.parseCIDR(info.cidr!)));
  const hops = gateways.flatMap((gw) =>
    parsed(() => {
      const ip = ipaddr.parse(gw);
      return [ip, ip.kind() === 'ipv4' ? 32 : 128];
    }),
  );
  return [...networks, ...hops];
}

function classifyIp(ip: Ip, own: Network[]): AddressClass {
  if (LOOPBACK.some((n) => within(ip, n))) return { kind: 'loopback' };
  if (ip.kind() === 'ipv6') {
    const carrier = IPV4_CARRIERS.find((c) => within(ip, c.network));
    if (carrier) {
      const v4 = carried(ip as ipaddr.IPv6, carrier.part);
      const inner = classifyIp(v4, own);
      if (inner.kind === 'public' || (inner.kind === 'loopback' && carrier.reachesLoopback)) return inner;
      const what = inner.kind === 'loopback' ? 'a loopback address' : inner.what;
      return { kind: 'internal', what: `the ${carrier.form} form of ${v4.toString()}, ${what}` };
    }
  }
  const hit = (ip.kind() === 'ipv4' ? INTERNAL_IPV4 : INTERNAL_IPV6).find((r) => within(ip, r.network));
  if (hit) return { kind: 'internal', what: hit.what };
  if (own.some((n) => within(ip, n)))
    return { kind: 'internal', what: "an address of this host's own network" };
  return { kind: 'public' };
}

/** What `address` (an IP literal, as `net.isIP` accepts) is, with `own` the host's networks. */
export function classifyAddress(address: string, own: Network[]): AddressClass {
  let ip: Ip;
  try {
    ip = ipaddr.parse(address);
  } catch {
    return { kind: 'internal', what: 'not an address that can be checked' };
  }
  return classifyIp(ip, own);
}
