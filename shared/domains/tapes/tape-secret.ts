import { createHmac, hkdfSync } from 'node:crypto';
import type { Env } from '../../infra/config/env.js';
import { resolveMasterKey } from '../../infra/secrets/master-key.js';

/** What a tape key signs: download URLs, or the pseudonyms of sim traders. */
type Purpose = 'tape-urls' | 'tape-parties';

const keys = new Map<string, Buffer>();

/**
 * A key of its own per purpose, derived from the secrets master key (HKDF), so that every process
 * of the service signs and verifies alike with nothing new to configure, and a leaked tape key
 * opens nothing else.
 */
export function tapeKey(env: Pick<Env, 'DATA_DIR' | 'SECRETS_MASTER_KEY'>, purpose: Purpose): Buffer {
  const id = `${env.SECRETS_MASTER_KEY ?? env.DATA_DIR}|${purpose}`;
  let key = keys.get(id);
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', resolveMasterKey(env).key, Buffer.alloc(0), purpose, 32));
    keys.set(id, key);
  }
  return key;
}

/**
 * The pseudonym a sim trader has on tapes: stable (one agent reads as one trader across tapes) but
 * not the agent id, so a published tape does not tell who traded what.
 */
export const partyPseudonym = (key: Buffer, agentId: string) =>
  `agent-${createHmac('sha256', key).update(agentId).digest('hex').slice(0, 16)}`;
