import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from './config/env.js';
import { ensurePrivateDir, writePrivateFile } from './private-files.js';

/**
 * Operator token and JWT secret: from config when set; otherwise (never in production, which config
 * refuses) generated once into the data directory, so a restart keeps them.
 */
export interface GeneratedSecret {
  token: string;
  /** True when this process created it: the start banner then prints it (the only time it is shown). */
  generated: boolean;
  file?: string;
}

const resolved = new Map<string, GeneratedSecret>();

/** A secret from config, else one generated once into DATA_DIR/<name> (never in production: config refuses). */
export function resolveGeneratedSecret(
  dataDir: string,
  name: string,
  given: string | undefined,
): GeneratedSecret {
  if (given) return { token: given, generated: false };
  const file = join(dataDir, name);
  const known = resolved.get(file);
  if (known) return known;
  let secret: GeneratedSecret;
  if (existsSync(file)) {
    secret = { token: readFileSync(file, 'utf8').trim(), generated: false, file };
  } else {
    ensurePrivateDir(dataDir);
    const token = randomBytes(32).toString('base64url');
    writePrivateFile(file, `${token}\n`);
    secret = { token, generated: true, file };
  }
  resolved.set(file, secret);
  return secret;
}

export const resolveOperatorToken = (env: Env) =>
  resolveGeneratedSecret(env.DATA_DIR, 'operator-token', env.OPERATOR_TOKEN);
