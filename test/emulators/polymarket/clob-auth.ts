import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { getAddress, isAddress, recoverAddress } from 'ethers';
import { uuidFrom } from './ids.js';
import { clobAuthDigest } from './typed-data.js';

// CLOB authentication (reference §4): L1 = an EIP-712 `ClobAuth` signature by the EOA, used to
// create or derive API credentials; L2 = an HMAC of every trading request with the credentials'
// secret. Credentials are derived from (address, nonce, generation) so that "derive" gives back
// exactly what "create" handed out, across emulator restarts too; the generation moves on when a
// key is deleted, so a re-created key is a new one.

export interface ApiCreds {
  apiKey: string;
  secret: string;
  passphrase: string;
}

export interface ApiKeyRecord extends ApiCreds {
  /** The EOA that owns the key, lower-case. */
  address: string;
  nonce: string;
}

export class AuthError extends Error {}

const L1_ERROR = 'Invalid L1 Request headers';
export const L2_ERROR = 'Unauthorized/Invalid api key';

/** Secrets may come base64 or base64url, padded or not (§4.2): normalise before decoding. */
function decodeSecret(secret: string): Buffer {
  const std = secret.replace(/-/g, '+').replace(/_/g, '/');
  return Buffer.from(std + '='.repeat((4 - (std.length % 4)) % 4), 'base64');
}

/**
 * The L2 `POLY_SIGNATURE`: base64url(HMAC-SHA256(secret, timestamp + METHOD + path + body)),
 * keeping the `=` padding. `body` is the raw request body, absent when there is none.
 */
export function l2Signature(
  secret: string,
  timestamp: string | number,
  method: string,
  requestPath: string,
  body?: string,
): string {
  const message = `${timestamp}${method.toUpperCase()}${requestPath}${body ?? ''}`;
  return createHmac('sha256', decodeSecret(secret))
    .update(message)
    .digest('base64')
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Header lookup that does not care about case (Node lower-cases them anyway). */
export type HeaderGetter = (name: string) => string | undefined;

/** The clock rule shared by L1 and L2: |timestamp − now| within `skewSec` of any accepted clock. */
function timestampOk(ts: string | undefined, nowsSec: number[], skewSec: number | null): ts is string {
  if (ts === undefined || !/^\d{1,12}$/.test(ts)) return false;
  if (skewSec === null) return true;
  const t = Number(ts);
  return nowsSec.some((now) => Math.abs(t - now) <= skewSec);
}

/**
 * Checks L1 headers (`POLY_ADDRESS`, `POLY_SIGNATURE`, `POLY_TIMESTAMP`, `POLY_NONCE`): the
 * signature must recover POLY_ADDRESS over ClobAuth{address, timestamp, nonce, message}.
 */
export function verifyL1(
  header: HeaderGetter,
  nowsSec: number[],
  skewSec: number | null,
): { address: string; nonce: string } {
  const address = header('POLY_ADDRESS');
  const signature = header('POLY_SIGNATURE');
  const timestamp = header('POLY_TIMESTAMP');
  const nonce = header('POLY_NONCE') ?? '0';
  if (!address || !isAddress(address) || !signature || !/^\d{1,30}$/.test(nonce))
    throw new AuthError(L1_ERROR);
  if (!timestampOk(timestamp, nowsSec, skewSec)) throw new AuthError(L1_ERROR);
  let signer: string;
  try {
    signer = recoverAddress(clobAuthDigest(getAddress(address), timestamp, BigInt(nonce)), signature);
  } catch {
    throw new AuthError(L1_ERROR);
  }
  if (signer.toLowerCase() !== address.toLowerCase()) throw new AuthError(L1_ERROR);
  return { address: address.toLowerCase(), nonce: String(BigInt(nonce)) };
}

/** The API keys handed out so far. */
export class ApiKeyStore {
  private readonly byApiKey = new Map<string, ApiKeyRecord>();
  /** `${address}:${nonce}` → how many keys of that pair were deleted. */
  private readonly generations = new Map<string, number>();

  reset(): void {
    this.byApiKey.clear();
    this.generations.clear();
  }

  private credsFor(address: string, nonce: string): ApiKeyRecord {
    const generation = this.generations.get(`${address}:${nonce}`) ?? 0;
    const seed = (label: string) =>
      createHash('sha256').update(`polymarket-emulator:${label}:${address}:${nonce}:${generation}`).digest();
    const apiKey = uuidFrom(`polymarket-emulator:key:${address}:${nonce}:${generation}`);
    // 32 random-looking bytes as url-safe base64 with padding, like the real secrets.
    const secret = seed('secret').toString('base64').replace(/\+/g, '-').replace(/\//g, '_');
    const passphrase = seed('passphrase').toString('hex');
    return { apiKey, secret, passphrase, address, nonce };
  }

  private existing(address: string, nonce: string): ApiKeyRecord | undefined {
    return this.byApiKey.get(this.credsFor(address, nonce).apiKey);
  }

  /** `POST /auth/api-key`: undefined when the pair already has a key (the real API answers 400). */
  create(address: string, nonce: string): ApiKeyRecord | undefined {
    if (this.existing(address, nonce)) return undefined;
    const rec = this.credsFor(address, nonce);
    this.byApiKey.set(rec.apiKey, rec);
    return rec;
  }

  /** `GET /auth/derive-api-key`: the key created for this pair, if any. */
  derive(address: string, nonce: string): ApiKeyRecord | undefined {
    return this.existing(address, nonce);
  }

  get(apiKey: string): ApiKeyRecord | undefined {
    return this.byApiKey.get(apiKey);
  }

  keysOf(address: string): ApiKeyRecord[] {
    return [...this.byApiKey.values()].filter((r) => r.address === address.toLowerCase());
  }

  delete(apiKey: string): void {
    const rec = this.byApiKey.get(apiKey);
    if (!rec) return;
    this.byApiKey.delete(apiKey);
    const pair = `${rec.address}:${rec.nonce}`;
    this.generations.set(pair, (this.generations.get(pair) ?? 0) + 1);
  }

  /**
   * Checks L2 headers for a request: a known key owned by POLY_ADDRESS, its passphrase, a fresh
   * timestamp and the HMAC over exactly the bytes received. Any mismatch is the same 401.
   */
  verifyL2(
    header: HeaderGetter,
    req: { method: string; path: string; rawBody: string | undefined },
    nowsSec: number[],
    skewSec: number | null,
  ): ApiKeyRecord {
    const rec = this.byApiKey.get(header('POLY_API_KEY') ?? '');
    const address = header('POLY_ADDRESS');
    const timestamp = header('POLY_TIMESTAMP');
    const signature = header('POLY_SIGNATURE');
    if (!rec || !address || address.toLowerCase() !== rec.address) throw new AuthError(L2_ERROR);
    if (!sameText(header('POLY_PASSPHRASE') ?? '', rec.passphrase)) throw new AuthError(L2_ERROR);
    if (!timestampOk(timestamp, nowsSec, skewSec) || !signature) throw new AuthError(L2_ERROR);
    const body = req.rawBody === undefined || req.rawBody === '' ? undefined : req.rawBody;
    const expected = l2Signature(rec.secret, timestamp, req.method, req.path, body);
    if (!sameText(signature, expected)) throw new AuthError(L2_ERROR);
    return rec;
  }
}
