import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../shared/infra/embedded/child-process.js';
import { startMongoServer } from '../shared/infra/embedded/mongo-server.js';
import { startRedisServer } from '../shared/infra/embedded/redis-server.js';
import { createLogger } from '../shared/infra/logger.js';
import { startServiceProcess } from '../test/support/service-process.js';

export interface Stack {
  baseUrl: string;
  redisUrl: string;
  mongoUri: string;
  operatorToken: string;
  stop(): Promise<void>;
}

/**
 * `npm start`'s program in a throw-away data directory: the all-in-one service on the embedded
 * default, in production mode (what ships: `NODE_ENV=production` with an operator token, a JWT
 * secret and a secrets master key of the bench's own; `BENCH_NODE_ENV` overrides the mode). With `memoryDatabase`, Redis and
 * mongo-java-server's memory backend are started here and handed to the service by URL (the H2 file
 * backend cannot ingest a 100,000-market catalogue in reasonable time; production runs MongoDB 7).
 */
export async function startStack(
  benchEnv: Record<string, string> = {},
  opts: { memoryDatabase?: boolean } = {},
): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ats-bench-'));
  const extraEnv: Record<string, string> = {
    NODE_ENV: process.env.BENCH_NODE_ENV || 'production',
    OPERATOR_TOKEN: randomBytes(24).toString('hex'),
    JWT_SECRET: randomBytes(32).toString('hex'),
    SECRETS_MASTER_KEY: randomBytes(32).toString('hex'),
    ...benchEnv,
  };
  const log = createLogger('silent', 'bench');
  const servers = opts.memoryDatabase
    ? [
        await startRedisServer({ dir: join(dataDir, 'redis'), persistent: false, log }),
        await startMongoServer({ dir: join(dataDir, 'mongo'), persistent: false, log }),
      ]
    : [];
  if (servers.length) Object.assign(extraEnv, { REDIS_URL: servers[0]!.url, MONGODB_URI: servers[1]!.url });
  const port = await freePort();
  const service = await startServiceProcess(dataDir, port, extraEnv).catch(async (err: unknown) => {
    // The service did not start: the servers started for it must not outlive the bench.
    for (const server of servers) await server.child.stop();
    throw err;
  });
  const { proc } = service;
  const out = service.output();
  const redisUrl = servers[0]?.url ?? /redis-server at (redis:\/\/\S+)/.exec(out)?.[1];
  const mongoUri = servers[1]?.url ?? /(?:mongo-java-server|mongod) at (mongodb:\/\/\S+)/.exec(out)?.[1];
  const operatorToken = /shown only now\): (\S+)/.exec(out)?.[1] ?? extraEnv.OPERATOR_TOKEN;
  if (!redisUrl || !mongoUri || !operatorToken) throw new Error(`could not read the start banner:\n${out}`);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    redisUrl,
    mongoUri,
    operatorToken,
    async stop() {
      proc.kill('SIGTERM');
      await service.exited;
      for (const server of servers) await server.child.stop();
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}
