import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Env } from './config/env.js';

/**
 * The operator credential: OPERATOR_TOKEN when set; otherwise (never in production, which config
 * refuses) a token generated once into DATA_DIR/operator-token, so a restart keeps it.
 */
export interface OperatorToken {
  token: string;
  /** True when this process created it: the start banner then prints it (the only time it is shown). */
  generated: boolean;
  file?: string;
}

let resolved: OperatorToken | undefined;

export function resolveOperatorToken(env: Env): OperatorToken {
  if (env.OPERATOR_TOKEN) return { token: env.OPERATOR_TOKEN, generated: false };
  const file = join(env.DATA_DIR, 'operator-token');
  if (resolved?.file === file) return resolved;
  if (existsSync(file)) {
    resolved = { token: readFileSync(file, 'utf8').trim(), generated: false, file };
  } else {
    mkdirSync(env.DATA_DIR, { recursive: true });
    const token = randomBytes(24).toString('base64url');
    writeFileSync(file, `${token}\n`, { mode: 0o600 });
    resolved = { token, generated: true, file };
  }
  return resolved;
}
