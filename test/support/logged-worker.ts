import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../shared/infra/embedded/child-process.js';
import type { EmbeddedServer } from '../../shared/infra/embedded/redis-server.js';
import { createLogger, type Logger } from '../../shared/infra/logger.js';
import { testContext } from './context.js';

const root = resolve(import.meta.dirname, '../..');

type StartServer = (opts: {
  dir: string;
  persistent: boolean;
  log: Logger;
  port: number;
}) => Promise<EmbeddedServer>;

/**
 * `npm run start:workers`' program (the trades queue only) with its log captured at info level,
 * for tests that start it while Redis or the database is not there yet and then start that one.
 * `name` keys its queues (it must not take other tests' jobs) and its temporary folder.
 */
export async function spawnLoggedWorker(
  name: string,
  connection: { REDIS_URL: string; MONGODB_URI: string; MONGODB_DB: string },
) {
  const ctx = testContext();
  const dir = mkdtempSync(join(tmpdir(), `${name}-`));
  const startedAt = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'test',
      ...connection,
      QUEUE_PREFIX: `${name}-${process.pid}`,
      WORKER_QUEUES: 'trades',
      PORT: String(await freePort()),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      DATA_DIR: ctx.env.DATA_DIR,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let server: EmbeddedServer | undefined;

  const worker = {
    startedAt,
    output: () => out,
    running: () => child.exitCode === null,
    count: (line: RegExp) => out.match(line)?.length ?? 0,

    /** Polls `check` every 100 ms; past `timeoutMs`, fails with the worker's output so far. */
    async until(what: string, check: () => boolean, timeoutMs: number): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (!check()) {
        if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms. Output:\n${out}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },

    /** Starts the missing server, without persistence, on the port the worker was given. */
    async startServer(start: StartServer, port: number): Promise<void> {
      server = await start({ dir, persistent: false, log: createLogger('silent', 'test'), port });
    },

    /** The worker comes up within `timeoutMs`, logs `answersNow`, and stops cleanly on SIGTERM. */
    async expectStartedThenStopped(answersNow: RegExp, timeoutMs: number): Promise<void> {
      await worker.until('the workers start', () => out.includes('workers started'), timeoutMs);
      assert.match(out, answersNow);
      child.kill('SIGTERM');
      assert.equal(await exited, 0, `a clean stop after it came up:\n${out}`);
    },

    /** For `finally`: kills the worker if it still runs, stops the server, removes the folder. */
    async dispose(): Promise<void> {
      if (child.exitCode === null) child.kill('SIGKILL');
      await server?.child.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return worker;
}
