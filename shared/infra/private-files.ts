import { chmodSync, mkdirSync, writeFileSync, type WriteFileOptions } from 'node:fs';

/**
 * The data directory holds the databases, generated secrets (operator token, JWT secret, the
 * master key) and the lock file: nobody but the service's own user may read any of it. Directories
 * are 0700 and files 0600 whatever the umask; the embedded servers run with umask 077 so that the
 * files they create (Redis's AOF, the H2 or mongod files) are private too (child-process.ts).
 */
export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;
/** The umask that gives PRIVATE_DIR_MODE / PRIVATE_FILE_MODE to whatever a process creates. */
export const PRIVATE_UMASK = 0o077;

/**
 * Creates `dir` (and missing parents) as 0700, and narrows it to 0700 if it exists: a data
 * directory made by an older version (0755) is closed on the next start.
 */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  chmodSync(dir, PRIVATE_DIR_MODE);
}

/** Writes a file readable by the service's user only (0600), e.g. a generated secret. */
export function writePrivateFile(file: string, data: string, options: { flag?: string } = {}): void {
  const opts: WriteFileOptions = { mode: PRIVATE_FILE_MODE, ...options };
  writeFileSync(file, data, opts);
}
