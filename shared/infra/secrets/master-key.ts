import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from '../config/env.js';
import { ensurePrivateDir, writePrivateFile } from '../private-files.js';
import { MASTER_KEY_BYTES, SecretBox, SecretsError } from './envelope.js';

export const MASTER_KEY_FILE = 'secrets-master-key';
const HEX_KEY = /^[0-9a-fA-F]{64}$/;

export interface MasterKeySource {
  key: Buffer;
  /** True when this process created the file (a fresh development key). */
  generated: boolean;
  /** The file it came from; absent when SECRETS_MASTER_KEY is set. */
  file?: string;
}

/**
 * SECRETS_MASTER_KEY when set (required in production: config refuses to start without it);
 * otherwise a key generated once into DATA_DIR/secrets-master-key, as the operator token is, so a
 * restart can still open what was sealed. The file is created exclusively (`wx`): processes that
 * share the data directory and start together end up with the same key.
 */
export function resolveMasterKey(env: Pick<Env, 'DATA_DIR' | 'SECRETS_MASTER_KEY'>): MasterKeySource {
  if (env.SECRETS_MASTER_KEY) return { key: Buffer.from(env.SECRETS_MASTER_KEY, 'hex'), generated: false };
  const file = join(env.DATA_DIR, MASTER_KEY_FILE);
  const read = (): MasterKeySource => {
    const text = readFileSync(file, 'utf8').trim();
    if (!HEX_KEY.test(text))
      throw new SecretsError(
        `${file} does not hold a master key (64 hex characters); restore it, or set SECRETS_MASTER_KEY`,
      );
    return { key: Buffer.from(text, 'hex'), generated: false, file };
  };
  try {
    return read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  ensurePrivateDir(env.DATA_DIR);
  const key = randomBytes(MASTER_KEY_BYTES);
  try {
    writePrivateFile(file, `${key.toString('hex')}\n`, { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return read(); // another process won the race
    throw err;
  }
  return { key, generated: true, file };
}

const boxes = new Map<string, SecretBox>();

/** The process's SecretBox for this configuration (resolved once, then shared). */
export function secretBox(env: Pick<Env, 'DATA_DIR' | 'SECRETS_MASTER_KEY'>): SecretBox {
  const id = env.SECRETS_MASTER_KEY
    ? `env:${createHash('sha256').update(env.SECRETS_MASTER_KEY.toLowerCase()).digest('hex')}`
    : `file:${join(env.DATA_DIR, MASTER_KEY_FILE)}`;
  let box = boxes.get(id);
  if (!box) {
    const source = resolveMasterKey(env);
    box = new SecretBox(source.key);
    source.key.fill(0);
    boxes.set(id, box);
  }
  return box;
}
