import { createHmac, timingSafeEqual } from 'node:crypto';

/** The files of a built tape, as the URLs name them. */
export const TAPE_FILES = ['markets.parquet', 'quant.parquet', 'manifest.json'] as const;
export type TapeFile = (typeof TAPE_FILES)[number];

export const isTapeFile = (name: string): name is TapeFile =>
  (TAPE_FILES as readonly string[]).includes(name);

/** The path a tape file is downloaded from (no authentication: the signature is the permission). */
export const tapeFilePath = (key: string, file: TapeFile) => `/api/backtest/files/${key}/${file}`;

const signature = (secret: Buffer, key: string, file: string, expires: number) =>
  createHmac('sha256', secret).update(`${key}/${file}:${expires}`).digest('base64url');

/** A download URL of one tape file that works until `expiresSec` (Unix seconds). */
export function signTapeUrl(secret: Buffer, origin: string, key: string, file: TapeFile, expiresSec: number) {
  return `${origin}${tapeFilePath(key, file)}?expires=${expiresSec}&sig=${signature(secret, key, file, expiresSec)}`;
}

/** Whether a download may go ahead: the signature must match the key, file and expiry, and be in time. */
export function checkTapeUrl(
  secret: Buffer,
  key: string,
  file: string,
  expires: string | undefined,
  sig: string | undefined,
  nowSec: number,
): 'ok' | 'expired' | 'invalid' {
  if (!expires || !sig || !/^\d{1,12}$/.test(expires)) return 'invalid';
  const expected = Buffer.from(signature(secret, key, file, Number(expires)));
  const given = Buffer.from(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return Number(expires) < nowSec ? 'expired' : 'ok';
}
