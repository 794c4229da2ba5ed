import type { InfraDeps } from '../../../infra/infra-deps.js';
import { z } from 'zod';
import type { Wallet as EthersWallet } from 'ethers';
import { AppError } from '../../../infra/errors.js';
import { createVenueMetrics } from '../../../infra/http/venue-metrics.js';
import { VenueHttpClient, VenueHttpError } from '../../../infra/http/venue-http-client.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ClobAuthDeps = Pick<InfraDeps, 'env' | 'log' | 'metrics'>;

/** Polymarket CLOB L1 authentication (polymarket.md §4.1): ClobAuth EIP-712, no verifyingContract. */
export const CLOB_AUTH_DOMAIN = { name: 'ClobAuthDomain', version: '1', chainId: 137 } as const;
export const CLOB_AUTH_TYPES = {
  ClobAuth: [
    { name: 'address', type: 'address' },
    { name: 'timestamp', type: 'string' },
    { name: 'nonce', type: 'uint256' },
    { name: 'message', type: 'string' },
  ],
};
export const CLOB_AUTH_MESSAGE = 'This message attests that I control the given wallet';

/** The four L1 headers, as the CLOB reads them. */
export interface L1Headers {
  address: string;
  signature: string;
  timestamp: string;
  nonce: string;
}

/** L2 credentials as the CLOB returns them (`{apiKey, secret, passphrase}`). */
export interface ClobApiCreds {
  apiKey: string;
  secret: string;
  passphrase: string;
}

const ApiCredsSchema = z.object({
  apiKey: z.string().min(1),
  secret: z.string().min(1),
  passphrase: z.string().min(1),
});

/** L1 headers signed by `signer` (a managed wallet) for `timestamp` (unix seconds) and `nonce`. */
export async function signClobAuth(
  signer: Pick<EthersWallet, 'address' | 'signTypedData'>,
  timestamp: number,
  nonce = 0,
): Promise<L1Headers> {
  const value = { address: signer.address, timestamp: String(timestamp), nonce, message: CLOB_AUTH_MESSAGE };
  const signature = await signer.signTypedData(CLOB_AUTH_DOMAIN, CLOB_AUTH_TYPES, value);
  return { address: signer.address, signature, timestamp: String(timestamp), nonce: String(nonce) };
}

// One client per composition root (tests build apps with their own logger), each with its own breaker.
const clients = new WeakMap<object, VenueHttpClient>();

/**
 * The CLOB at POLYMARKET_CLOB_URL for L1 calls. Its own client (metrics label `polymarket-auth`), so
 * that a refused or failing key derivation never opens the market-data circuit, and so that the
 * market-data client's circuit gauge stays its own.
 */
function clobAuthClient(deps: Pick<ClobAuthDeps, 'env' | 'log' | 'metrics'>): VenueHttpClient {
  let client = clients.get(deps);
  if (!client) {
    client = new VenueHttpClient({
      venue: 'polymarket-auth',
      baseUrl: deps.env.POLYMARKET_CLOB_URL,
      timeoutMs: deps.env.VENUE_TIMEOUT_MS,
      retries: deps.env.VENUE_RETRIES,
      breaker: {
        failureThreshold: deps.env.VENUE_BREAKER_FAILURES,
        cooldownMs: deps.env.VENUE_BREAKER_COOLDOWN_MS,
      },
      metrics: createVenueMetrics(deps.metrics.registry),
      log: deps.log.child({ component: 'venue', venue: 'polymarket-auth' }),
    });
    clients.set(deps, client);
  }
  return client;
}

const l1HeaderValues = (h: L1Headers) => ({
  POLY_ADDRESS: h.address,
  POLY_SIGNATURE: h.signature,
  POLY_TIMESTAMP: h.timestamp,
  POLY_NONCE: h.nonce,
});

/** The CLOB's own words, without our client's prefix: `HTTP 401: Invalid L1 Request headers` → the text. */
const venueText = (err: VenueHttpError) => err.message.replace(/^.*?HTTP \d{3}: /, '').slice(0, 200);

/**
 * L2 credentials for the L1-signed headers: `GET /auth/derive-api-key` (deterministic per address
 * and nonce); when no key exists yet for them, `POST /auth/api-key` creates one, as the official
 * clients' createOrDeriveApiKey does. The answer is held in memory only, never logged.
 */
export async function deriveClobApiKey(
  deps: Pick<ClobAuthDeps, 'env' | 'log' | 'metrics'>,
  headers: L1Headers,
): Promise<ClobApiCreds> {
  const client = clobAuthClient(deps);
  const h = l1HeaderValues(headers);
  try {
    try {
      return await client.get('/auth/derive-api-key', {
        endpoint: 'clob.auth.derive-api-key',
        schema: ApiCredsSchema,
        headers: h,
      });
    } catch (err) {
      // 400 (real CLOB: "Could not derive api key!") or 404: no key for this address and nonce yet.
      if (
        !(err instanceof VenueHttpError) ||
        err.kind !== 'client' ||
        (err.status !== 400 && err.status !== 404)
      )
        throw err;
      return await client.post('/auth/api-key', {
        endpoint: 'clob.auth.api-key',
        schema: ApiCredsSchema,
        headers: h,
        body: undefined,
      });
    }
  } catch (err) {
    if (!(err instanceof VenueHttpError)) throw err;
    if (err.kind === 'client')
      throw new AppError(
        400,
        'clob_auth_refused',
        `The Polymarket CLOB refused the L1 signature (HTTP ${err.status ?? '4xx'}: ${venueText(err)})`,
        'Sign a fresh ClobAuth message (EIP-712, domain ClobAuthDomain v1, chain 137) with the wallet linked here, with the current unix time as poly_timestamp, and send it again.',
        { cause: err },
      );
    throw new AppError(
      503,
      'venue_unavailable',
      `The Polymarket CLOB is unreachable from this service right now (${err.kind})`,
      'Retry in a minute, or derive the credentials yourself and send them to POST /api/sdk/wallet/credentials.',
      { retryable: true, cause: err },
    );
  }
}
