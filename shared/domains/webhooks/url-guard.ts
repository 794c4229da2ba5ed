import { promises as dns, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import type { Env } from '../../infra/config/env.js';
import { hostGateways } from './host-gateways.js';
import { classifyAddress, hostNetworks } from './internal-addresses.js';

/**
 * The SSRF guard of webhook and price-alert deliveries. A receiver must be a public address: loopback,
 * link-local, private (RFC 1918, CGNAT, ULA), metadata, multicast, documentation and reserved ranges,
 * IPv6 forms carrying such an IPv4 (mapped, translated, NAT64, 6to4) and this host's own networks are
 * refused, at registration (every address the name resolves to) and again at connect time through
 * `pinnedLookup`, which resolves, checks and hands the socket only addresses it checked (a name
 * re-pointed after registration, DNS rebinding, cannot switch it). WEBHOOK_ALLOW_LOOPBACK lets
 * loopback through for tests and local demos; nothing else.
 */
export interface UrlGuard {
  allowLoopback: boolean;
  /** Production: only https receivers. */
  httpsOnly: boolean;
  /** Every address (A and AAAA) a name resolves to; the system resolver when unset. */
  resolve?: ResolveHost;
  /** This host's interfaces, whose networks are internal; `os.networkInterfaces` when unset. */
  interfaces?: () => NodeJS.Dict<NetworkInterfaceInfo[]>;
  /** This host's gateways, internal wherever they are; the kernel's routing tables when unset. */
  gateways?: () => string[];
}

export type ResolveHost = (host: string) => Promise<LookupAddress[]>;

/** getaddrinfo with no family and no hints: the A and AAAA records alike, as a socket would use them. */
const systemResolve: ResolveHost = (host) => dns.lookup(host, { all: true });

export const urlGuardOf = (deps: {
  env: Pick<Env, 'WEBHOOK_ALLOW_LOOPBACK' | 'NODE_ENV'>;
  resolveHost?: ResolveHost;
}): UrlGuard => ({
  allowLoopback: deps.env.WEBHOOK_ALLOW_LOOPBACK,
  httpsOnly: deps.env.NODE_ENV === 'production',
  resolve: deps.resolveHost,
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

const ownNetworks = (guard: UrlGuard) =>
  hostNetworks((guard.interfaces ?? networkInterfaces)(), (guard.gateways ?? hostGateways)());

/** Why `address` (an IP literal) may not receive deliveries, or undefined when it may. */
function refusal(address: string, guard: UrlGuard, own: ReturnType<typeof ownNetworks>): string | undefined {
  const verdict = classifyAddress(address, own);
  if (verdict.kind === 'public' || (verdict.kind === 'loopback' && guard.allowLoopback)) return undefined;
  return verdict.kind === 'loopback' ? 'a loopback address' : verdict.what;
}

/** Throws UnsafeWebhookUrl unless `address` (an IP literal) may receive deliveries. */
export function assertPublicAddress(address: string, guard: UrlGuard): void {
  const why = refusal(address, guard, ownNetworks(guard));
  if (why) throw new UnsafeWebhookUrl(`Webhook host ${address} is ${why}`, PUBLIC_FIX);
}

/**
 * The same refusal for every unsafe name, whatever it resolves to: the answer must not tell a caller
 * what an internal name resolves to, nor which internal names exist.
 */
const unsafeName = (host: string) =>
  new UnsafeWebhookUrl(`Webhook host ${host} does not resolve to a public address`, PUBLIC_FIX);

/**
 * Every address `host` (a name) resolves to, each checked: one unsafe address refuses the name.
 * A resolver failure is passed on as it is (at connect time it is a network failure, retried).
 */
async function checkedAddresses(host: string, guard: UrlGuard): Promise<LookupAddress[]> {
  const addresses = await (guard.resolve ?? systemResolve)(host);
  if (!addresses.length) throw unsafeName(host);
  const own = ownNetworks(guard);
  if (addresses.some(({ address }) => refusal(address, guard, own))) throw unsafeName(host);
  return addresses;
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

/** Throws UnsafeWebhookUrl unless `host` is a public address or a name whose every address is. */
export async function assertPublicHost(host: string, guard: UrlGuard): Promise<void> {
  if (isIP(host)) return assertPublicAddress(host, guard);
  await checkedAddresses(host, guard).catch((err: unknown) => {
    throw err instanceof UnsafeWebhookUrl ? err : unsafeName(host);
  });
}

const familyNumber = (family: number | 'IPv4' | 'IPv6' | undefined) =>
  family === 'IPv4' ? 4 : family === 'IPv6' ? 6 : (family ?? 0);

/**
 * A socket `lookup` that resolves the name, refuses it unless every address (of both families,
 * whatever family the socket asks for) is allowed, and answers only addresses it checked: the
 * connection goes to an address that was checked.
 */
export function pinnedLookup(guard: UrlGuard): LookupFunction {
  return (hostname, options, callback) => {
    checkedAddresses(hostname, guard).then(
      (checked) => {
        const family = familyNumber(options.family);
        const usable = family ? checked.filter((a) => a.family === family) : checked;
        if (!usable.length)
          return callback(
            Object.assign(new Error(`${hostname} has no IPv${family} address`), { code: 'ENOTFOUND' }),
            '',
          );
        if (options.all) callback(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, ''),
    );
  };
}
