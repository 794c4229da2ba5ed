import { randomInt } from 'node:crypto';
import { AppError } from '../../infra/errors.js';
import type { AgentRecord } from './agent.model.js';

const WORDS = [
  'reef',
  'tide',
  'kelp',
  'dune',
  'mesa',
  'fjord',
  'delta',
  'cove',
  'ridge',
  'grove',
  'marsh',
  'cliff',
  'brook',
  'glade',
  'heath',
  'knoll',
  'lagoon',
  'moor',
  'oasis',
  'peak',
  'quay',
  'shoal',
  'spire',
  'vale',
  'atoll',
  'bay',
  'cairn',
  'crag',
  'fern',
  'geyser',
  'isle',
  'pine',
] as const;
// Crockford-style alphabet: no 0/O or 1/I/L, so a code read aloud or copied by hand survives.
const ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';

const GROUPS = 3;
const GROUP_LENGTH = 6;

/**
 * e.g. `reef-X4B2Q7-M9KD3T-7HWQ2P`: a word for humans plus three groups of 6 random characters,
 * 18 × log2(31) ≈ 89 random bits, so a code cannot be guessed (issue 16: the old 6-character codes,
 * ~2^35 with the word, could be enumerated).
 */
export function generateClaimCode(): string {
  const groups = Array.from({ length: GROUPS }, () => {
    let group = '';
    for (let i = 0; i < GROUP_LENGTH; i++) group += ALPHABET[randomInt(ALPHABET.length)];
    return group;
  });
  return [WORDS[randomInt(WORDS.length)], ...groups].join('-');
}

/** A claim code as issued now, or of the old short form (`reef-X4B2Q7`), which keeps working until it expires. */
export const CLAIM_CODE_PATTERN =
  /^[a-z]{2,10}-(?:[2-9A-HJKMNP-Z]{4,8}|[2-9A-HJKMNP-Z]{6}(?:-[2-9A-HJKMNP-Z]{6}){2})$/;

type CodeHolder = Pick<AgentRecord, 'claimedBy' | 'claimCodeIssuedAt'> & { createdAt?: Date };

/**
 * When an agent's claim code stops working: CLAIM_CODE_TTL_HOURS after it was issued (after
 * registration for agents registered before issue times were kept).
 */
export const claimCodeExpiresAt = (agent: CodeHolder, ttlHours: number) =>
  expiryOfCodeIssuedAt(agent.claimCodeIssuedAt ?? agent.createdAt ?? new Date(0), ttlHours);

export const expiryOfCodeIssuedAt = (issuedAt: Date, ttlHours: number) =>
  new Date(issuedAt.getTime() + ttlHours * 3600_000);

const ROTATE_FIX =
  'Ask the agent for a fresh code: it calls POST /api/sdk/agents/me/claim-code/rotate with its API key and shares the new claim_url.';

/** An unclaimed agent's code past its time answers 410 (a claimed agent's code is history, not a secret). */
export function assertClaimCodeLive(agent: CodeHolder, ttlHours: number, now: Date): void {
  if (agent.claimedBy || now < claimCodeExpiresAt(agent, ttlHours)) return;
  throw new AppError(410, 'claim_code_expired', 'This claim code has expired', ROTATE_FIX, {
    body: { expired_at: claimCodeExpiresAt(agent, ttlHours).toISOString() },
  });
}
