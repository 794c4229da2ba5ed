import { lookup as dnsLookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import type { Env } from '../../infra/config/env.js';

/**
 * The SSRF guard of webhook deliveries. A receiver must be a public address: loopback, link-local,
 * private (RFC 1918, CGNAT, ULA), metadata, multicast and reserved ranges are refused, at
 * registration (every address the name resolves to) and again at connect time through `pinnedLookup`,
 * which resolves, checks and hands the socket exactly the address it checked (a name re-pointed
 * after registration, DNS rebinding, cannot switch it). WEBHOOK_ALLOW_LOOPBACK lets loopback through
 * for tests and local demos; nothing else.
 */
export interface UrlGuard {
  allowLoopback: boolean;
  /** Production: only https receivers. */
  httpsOnly: boolean;
}

export const urlGuardOf = (env: Pick<Env, 'WEBHOOK_ALLOW_LOOPBACK' | 'NODE_ENV'>): UrlGuard => ({
  allowLoopback: env.WEBHOOK_ALLOW_LOOPBACK,
  httpsOnly: env.NODE_ENV === 'production',
});

/** Why an address or URL is refused: one sentence for the caller, one for the fix. */
export class UnsafeWebhookUrl extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
    this.name = 'UnsafeWebhookUrl';
  }
}

const PUBLIC_FIX =
  'Use a publicly reachable https URL (a receiver on the internet, not a private or internal address).';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Refused even with WEBHOOK_ALLOW_LOOPBACK: [range, prefix, family, what]. */
const FORBIDDEN_RANGES: [string, number, 'ipv4' | 'ipv6', string][] = [
  ['169.254.169.254', 32, 'ipv4', 'a cloud metadata address'],
  ['fd00:ec2::254', 128, 'ipv6', 'a cloud metadata address'],
  ['0.0.0.0', 8, 'ipv4', 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'ipv4', 'a private (RFC 1918) address'],
  ['172.16.0.0', 12, 'ipv4', 'a private (RFC 1918) address'],
  ['192.168.0.0', 16, 'ipv4', 'a private (RFC 1918) address'],
  ['100.64.0.0', 10, 'ipv4', 'a carrier-grade NAT (RFC 6598) address'],
  ['169.254.0.0', 16, 'ipv4', 'a link-local address'],
  ['192.0.0.0', 24, 'ipv4', 'an IETF protocol assignment address'],
  ['198.18.0.0', 15, 'ipv4', 'a benchmarking address'],
  ['224.0.0.0', 4, 'ipv4', 'a multicast address'],
  ['240.0.0.0', 4, 'ipv4', 'a reserved address'],
  ['::', 128, 'ipv6', 'an unspecified address'],
  ['fc00::', 7, 'ipv6', 'a unique local (ULA) address'],
  ['fe80::', 10, 'ipv6', 'a link-local address'],
  ['ff00::', 8, 'ipv6', 'a multicast address'],
  ['64:ff9b::', 96, 'ipv6', 'a NAT64 address'],
  ['2001:db8::', 32, 'ipv6', 'a documentation address'],
];
const FORBIDDEN = FORBIDDEN_RANGES.map(([net, prefix, family, what]) => {
  const list = new BlockList();
  list.addSubnet(net, prefix, family);
  return { list, what };
});

const familyOf = (address: string) => (isIP(address) === 6 ? 'ipv6' : 'ipv4');

/** IPv4-mapped IPv6 (`::ffff:a.b.c.d`, also in hex) is judged as the IPv4 address it carries. */
function unmapped(address: string): string {
  if (isIP(address) !== 6) return address;
  const m = /^::ffff:(?:(\d+\.\d+\.\d+\.\d+)|([0-9a-f]{1,4}):([0-9a-f]{1,4}))$/i.exec(address);
  if (!m) return address;
  if (m[1]) return m[1];
  const hi = parseInt(m[2]!, 16);
  const lo = parseInt(m[3]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}

/** Throws UnsafeWebhookUrl unless `address` (an IP literal) may receive deliveries. */
export function assertPublicAddress(address: string, guard: UrlGuard, host = address): void {
  const ip = unmapped(address);
  const family = familyOf(ip);
  if (LOOPBACK.check(ip, family)) {
    if (guard.allowLoopback) return;
    throw new UnsafeWebhookUrl(`Webhook host ${host} is a loopback address (${address})`, PUBLIC_FIX);
  }
  const hit = FORBIDDEN.find((f) => f.list.check(ip, family));
  if (hit) throw new UnsafeWebhookUrl(`Webhook host ${host} is ${hit.what} (${address})`, PUBLIC_FIX);
}

/** The URL parsed and its scheme, credentials and literal host checked (names are checked by resolving). */
export function parseWebhookUrl(raw: string, guard: UrlGuard): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeWebhookUrl(
      `Webhook URL ${JSON.stringify(raw)} is not a valid URL`,
      'Send an absolute https:// URL.',
    );
  }
  const schemes = guard.httpsOnly ? ['https:'] : ['https:', 'http:'];
  if (!schemes.includes(url.protocol))
    throw new UnsafeWebhookUrl(
      `Webhook URL scheme ${url.protocol} is not allowed (${guard.httpsOnly ? 'https only' : 'http or https'})`,
      'Use an https:// URL.',
    );
  if (url.username || url.password)
    throw new UnsafeWebhookUrl(
      'Webhook URL must not carry credentials',
      'Remove user:password@ from the URL; deliveries are authenticated by the X-Simmer-Signature header.',
    );
  const host = hostOf(url);
  if (isIP(host)) assertPublicAddress(host, guard);
  return url;
}

/** The hostname without IPv6 brackets. */
export const hostOf = (url: URL) => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Every address `host` resolves to, each checked: one unsafe address refuses the name. */
export async function assertPublicHost(host: string, guard: UrlGuard): Promise<void> {
  if (isIP(host)) return assertPublicAddress(host, guard);
  const addresses = await new Promise<{ address: string }[]>((resolve, reject) =>
    dnsLookup(host, { all: true }, (err, found) => (err ? reject(err) : resolve(found))),
  ).catch((err: NodeJS.ErrnoException) => {
    throw new UnsafeWebhookUrl(
      `Webhook host ${host} does not resolve (${err.code ?? err.message})`,
      'Check the host name; it must resolve to a public address.',
    );
  });
  if (!addresses.length) throw new UnsafeWebhookUrl(`Webhook host ${host} does not resolve`, PUBLIC_FIX);
  for (const { address } of addresses) assertPublicAddress(address, guard, host);
}

/**
 * A socket `lookup` that resolves the name, refuses it unless every address is allowed, and answers
 * with the first address only: the connection goes to the address that was checked.
 */
export function pinnedLookup(guard: UrlGuard): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family }, (err, found) => {
      if (err) return callback(err, '', 4);
      try {
        if (!found.length)
          throw new UnsafeWebhookUrl(`Webhook host ${hostname} does not resolve`, PUBLIC_FIX);
        for (const { address } of found) assertPublicAddress(address, guard, hostname);
      } catch (refused) {
        return callback(refused as NodeJS.ErrnoException, '', 4);
      }
      const pinned = found[0]!;
      if (options.all) (callback as unknown as (e: null, a: typeof found) => void)(null, [pinned]);
      else callback(null, pinned.address, pinned.family);
    });
  };
}
