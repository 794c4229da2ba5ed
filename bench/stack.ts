import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../shared/infra/embedded/child-process.js';
import { startMongoServer } from '../shared/infra/embedded/mongo-server.js';
import { startRedisServer } from '../shared/infra/embedded/redis-server.js';
import { createLogger } from '../shared/infra/logger.js';

const root = resolve(import.meta.dirname, '..');

export interface Stack {
  baseUrl: string;
  redisUrl: string;
  mongoUri: string;
  operatorToken: string;
  stop(): Promise<void>;
}

/**
 * `npm start`'s program in a throw-away data directory: the all-in-one service on the embedded
 * default. With `memoryDatabase`, Redis and mongo-java-server's memory backend are started here and
 * handed to the service by URL (the H2 file backend cannot ingest a 100,000-market catalogue in
 * reasonable time; production runs MongoDB 7).
 */
export async function startStack(
  extraEnv: Record<string, string> = {},
  opts: { memoryDatabase?: boolean } = {},
): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ats-bench-'));
  const log = createLogger('silent', 'bench');
  const servers = opts.memoryDatabase
    ? [
        await startRedisServer({ dir: join(dataDir, 'redis'), persistent: false, log }),
        await startMongoServer({ dir: join(dataDir, 'mongo'), persistent: false, log }),
      ]
    : [];
  if (servers.length) Object.assign(extraEnv, { REDIS_URL: servers[0]!.url, MONGODB_URI: servers[1]!.url });
  const port = await freePort();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(REDIS_URL|MONGODB_URI|OPERATOR_TOKEN)$/.test(k)) env[k] = v;
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env: {
      ...env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const deadline = Date.now() + 120_000;
  while (!out.includes('Agent trading service is up')) {
    if (proc.exitCode !== null || Date.now() > deadline)
      throw new Error(`the service did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const redisUrl = servers[0]?.url ?? /redis-server at (redis:\/\/\S+)/.exec(out)?.[1];
  const mongoUri = servers[1]?.url ?? /(?:mongo-java-server|mongod) at (mongodb:\/\/\S+)/.exec(out)?.[1];
  const operatorToken = /shown only now\): (\S+)/.exec(out)?.[1];
  if (!redisUrl || !mongoUri || !operatorToken) throw new Error(`could not read the start banner:\n${out}`);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    redisUrl,
    mongoUri,
    operatorToken,
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
      for (const server of servers) await server.child.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
