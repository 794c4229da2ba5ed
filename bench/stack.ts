import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../shared/infra/embedded/child-process.js';
import { startMongoServer } from '../shared/infra/embedded/mongo-server.js';
import { startRedisServer } from '../shared/infra/embedded/redis-server.js';
import { createLogger } from '../shared/infra/logger.js';
import { startServiceProcess } from '../test/support/service-process.js';
import { startRoleProcess, stopRoleProcess, type RoleProcess } from '../test/support/role-processes.js';

export interface Stack {
  baseUrl: string;
  redisUrl: string;
  mongoUri: string;
  operatorToken: string;
  /** The service process (API + workers + jobs in one): the process whose CPU and memory a row reads. */
  pid: number;
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
  // BENCH_SERVICE_LOG names a file that gets everything the service prints from here on: a row whose
  // requests all fail says why there (a crash, a blocked event loop, an error it logged).
  if (process.env.BENCH_SERVICE_LOG) {
    const file = createWriteStream(process.env.BENCH_SERVICE_LOG, { flags: 'a' });
    proc.stdout!.pipe(file);
    proc.stderr!.pipe(file);
  }
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
    pid: proc.pid!,
    async stop() {
      proc.kill('SIGTERM');
      await service.exited;
      for (const server of servers) await server.child.stop();
      rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
    },
  };
}

export interface SplitStack extends Omit<Stack, 'baseUrl' | 'pid'> {
  /** One base URL per API process; the load is spread over them. */
  baseUrls: string[];
  stop(): Promise<void>;
}

/**
 * The compose topology as separate OS processes on this machine: `apis` API processes
 * (api/server.ts), `workers` worker processes (workers/main.ts, every queue, as compose's `workers`
 * service) and one jobs process, all on one redis-server and one mongo-java-server started here
 * with the embedded default's settings (append-only Redis, the H2 file backend), so that the rows
 * compare with the all-in-one stack's.
 */
export async function startSplitStack(
  benchEnv: Record<string, string>,
  counts: { apis: number; workers: number },
): Promise<SplitStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ats-bench-split-'));
  const log = createLogger('silent', 'bench');
  const redis = await startRedisServer({ dir: join(dataDir, 'redis'), persistent: true, log });
  const mongo = await startMongoServer({ dir: join(dataDir, 'mongo'), persistent: true, log });
  const operatorToken = randomBytes(24).toString('hex');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: process.env.BENCH_NODE_ENV || 'production',
    OPERATOR_TOKEN: operatorToken,
    JWT_SECRET: randomBytes(32).toString('hex'),
    SECRETS_MASTER_KEY: randomBytes(32).toString('hex'),
    REDIS_URL: redis.url,
    MONGODB_URI: mongo.url,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...benchEnv,
  };
  const procs: RoleProcess[] = [];
  const stopAll = async () => {
    await Promise.allSettled(procs.map((p) => stopRoleProcess(p)));
    await redis.child.stop();
    await mongo.child.stop();
    rmSync(dataDir, { recursive: true, force: true, maxRetries: 5 });
  };
  try {
    for (let i = 0; i < counts.workers; i++) procs.push(await startRoleProcess('workers', env));
    procs.push(await startRoleProcess('jobs', env));
    // One API first: it seeds the sim catalogue; the others find it seeded.
    const apis = [await startRoleProcess('api', env)];
    for (let i = 1; i < counts.apis; i++) apis.push(await startRoleProcess('api', env));
    procs.push(...apis);
    return {
      baseUrls: apis.map((a) => a.url),
      redisUrl: redis.url,
      mongoUri: mongo.url,
      operatorToken,
      stop: stopAll,
    };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
