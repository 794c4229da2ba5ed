import type { InfraDeps } from '../../infra/infra-deps.js';
import { randomBytes } from 'node:crypto';
import { publicBaseUrl } from '../../infra/config/env.js';
import { unavailable } from '../../infra/errors.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type WalletChallengeDeps = Pick<InfraDeps, 'env' | 'redis' | 'clock'>;

/** How long a challenge may be answered (client-contract §8.1). */
export const CHALLENGE_TTL_SECONDS = 300;
/** A challenge and a used nonce are remembered this long, so a late or repeated answer is told why. */
const RECORD_TTL_SECONDS = 3600;
const POLYGON_CHAIN_ID = 137;

export interface WalletChallenge {
  /** The settings key of the account it was issued to (`user:<id>`). */
  account: string;
  address: string;
  message: string;
  issuedAt: string;
  expiresAt: string;
}

const challengeKey = (deps: Pick<WalletChallengeDeps, 'env'>, nonce: string) =>
  `${deps.env.QUEUE_PREFIX}:wallet-challenge:${nonce}`;
const usedKey = (deps: Pick<WalletChallengeDeps, 'env'>, nonce: string) =>
  `${deps.env.QUEUE_PREFIX}:wallet-challenge-used:${nonce}`;

/**
 * The text the wallet signs: a Sign-In with Ethereum (EIP-4361) message bound to this service's
 * host, the address, Polygon, a single-use nonce and a five-minute window (polymarket.md §9.1).
 */
function challengeMessage(baseUrl: string, address: string, nonce: string, issuedAt: Date, expiresAt: Date) {
  return [
    `${new URL(baseUrl).host} wants you to sign in with your Ethereum account:`,
    address,
    '',
    'Link this wallet to your agent trading account.',
    '',
    `URI: ${baseUrl}`,
    'Version: 1',
    `Chain ID: ${POLYGON_CHAIN_ID}`,
    `Nonce: ${nonce}`,
    `Issued At: ${issuedAt.toISOString()}`,
    `Expiration Time: ${expiresAt.toISOString()}`,
  ].join('\n');
}

/** The text a challenge asks the wallet to sign, from its nonce and window. */
export type ChallengeText = (nonce: string, issuedAt: Date, expiresAt: Date) => string;

/**
 * Issues a single-use challenge for `address` (checksummed) to the account `accountKey`; `text`
 * words it for another chain (default: the Polygon sign-in message).
 */
export async function issueChallenge(
  deps: Pick<WalletChallengeDeps, 'env' | 'redis' | 'clock'>,
  accountKey: string,
  address: string,
  text: ChallengeText = (nonce, issuedAt, expiresAt) =>
    challengeMessage(publicBaseUrl(deps.env), address, nonce, issuedAt, expiresAt),
) {
  const nonce = randomBytes(16).toString('hex');
  const issuedAt = deps.clock();
  const expiresAt = new Date(issuedAt.getTime() + CHALLENGE_TTL_SECONDS * 1000);
  const challenge: WalletChallenge = {
    account: accountKey,
    address,
    message: text(nonce, issuedAt, expiresAt),
    issuedAt: issuedAt.toISOString(),
    expiresAt: expiresAt.toISOString(),
  };
  await deps.redis
    .set(challengeKey(deps, nonce), JSON.stringify(challenge), 'EX', RECORD_TTL_SECONDS)
    .catch((err: unknown) => {
      throw unavailable('The wallet challenge store', err);
    });
  return {
    nonce,
    message: challenge.message,
    address,
    issued_at: challenge.issuedAt,
    expires_at: challenge.expiresAt,
  };
}

export type ConsumedChallenge =
  { state: 'found'; challenge: WalletChallenge } | { state: 'used' } | { state: 'unknown' };

/**
 * Takes the challenge out of the store (atomically: of two concurrent answers one finds it) and
 * remembers the nonce as used. Every answer burns its nonce, right or wrong; whether it came in
 * time is the caller's check against `expiresAt`.
 */
export async function consumeChallenge(
  deps: Pick<WalletChallengeDeps, 'env' | 'redis'>,
  nonce: string,
): Promise<ConsumedChallenge> {
  try {
    const raw = await deps.redis.getdel(challengeKey(deps, nonce));
    if (raw) {
      await deps.redis.set(usedKey(deps, nonce), '1', 'EX', RECORD_TTL_SECONDS);
      return { state: 'found', challenge: JSON.parse(raw) as WalletChallenge };
    }
    return (await deps.redis.exists(usedKey(deps, nonce))) ? { state: 'used' } : { state: 'unknown' };
  } catch (err) {
    throw unavailable('The wallet challenge store', err);
  }
}
