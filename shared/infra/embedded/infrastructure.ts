import { existsSync, renameSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Env } from '../config/env.js';

import type { Logger } from '../logger.js';
import { redisTargetOf, type RedisTarget } from '../redis.js';
import { ensurePrivateDir, writePrivateFile } from '../private-files.js';
import { isAlive, type ManagedChild } from './child-process.js';
import { startMongoServer } from './mongo-server.js';
import { startRedisServer } from './redis-server.js';
import { superviseServer, type RestartPolicy, type SupervisedServer } from './supervisor.js';

/** Where Redis and MongoDB are: from config, or from the embedded servers `npm start` runs. */
export interface Infrastructure extends RedisTarget {
  mongoUri: string;
  /**
   * Embedded servers this process gave up restarting (their circuit opened): while any is listed
   * the process is not live. Absent when nothing is embedded.
   */
  abandonedServers?: () => string[];
}

export interface InfrastructureHandle {
  infra: Infrastructure;
  /** What was started here, for the start banner, e.g. `redis-server (AOF in ./data/redis)`. */
  started: string[];
  stop(): Promise<void>;
  /**
   * SIGKILLs every embedded child now, for a process forced to exit before `stop` finished: its
   * children must not outlive it (holding ports and data files until the next start reaps them).
   */
  kill(): void;
}

interface LockState {
  pid: number;
  children: number[];
}

/**
 * Replaces the lock file in one step (a new file renamed over it): a reader (the next start, a
 * chaos harness) never sees it empty or half written, which would read as a stale lock.
 */
function writeLockFile(lockFile: string, state: LockState) {
  const next = `${lockFile}.${process.pid}.tmp`;
  writePrivateFile(next, JSON.stringify(state));
  renameSync(next, lockFile);
}

/**
 * Takes DATA_DIR for this process. A live owner means another `npm start` uses it; a dead owner
 * (killed with SIGKILL) may have left its servers running on these files, so stop those first.
 */
async function takeDataDirLock(lockFile: string, dataDir: string): Promise<void> {
  if (existsSync(lockFile)) {
    let state: LockState = { pid: 0, children: [] };
    try {
      state = JSON.parse(readFileSync(lockFile, 'utf8')) as LockState;
    } catch {
      // An unreadable lock is treated as stale.
    }
    if (state.pid && state.pid !== process.pid && isAlive(state.pid)) {
      throw new Error(
        `DATA_DIR ${dataDir} is in use by process ${state.pid} (another npm start?). Stop it, or set DATA_DIR to another folder.`,
      );
    }
    for (const pid of state.children.filter(isAlive)) process.kill(pid, 'SIGTERM');
    for (let i = 0; i < 100 && state.children.some(isAlive); i++)
      await new Promise((r) => setTimeout(r, 100));
  }
  writeLockFile(lockFile, { pid: process.pid, children: [] });
}

/**
 * The embedded default: REDIS_URL / MONGODB_URI when set, otherwise our own redis-server (AOF) and
 * MongoDB-wire server (mongod, or mongo-java-server on an H2 file) with their data under DATA_DIR.
 * A lock file stops two processes from sharing one data directory. The embedded servers are
 * supervised (restarted when they exit; see supervisor.ts), and the lock file follows their pids.
 */
export async function startInfrastructure(
  env: Env,
  log: Logger,
  hooks: {
    /** An embedded server's restart circuit opened (already logged): it stays down. */
    onServerAbandoned?: (server: string) => void;
  } = {},
): Promise<InfrastructureHandle> {
  const dataDir = resolve(env.DATA_DIR);
  const children: SupervisedServer[] = [];
  const policy: RestartPolicy = {
    maxFailures: env.EMBEDDED_RESTART_MAX_FAILURES,
    windowMs: env.EMBEDDED_RESTART_WINDOW_SECONDS * 1000,
  };
  const started: string[] = [];
  const configuredRedis = redisTargetOf(env);
  const needsEmbedded = !configuredRedis.redisUrl || !env.MONGODB_URI;
  const lockFile = join(dataDir, 'embedded.pid');
  if (needsEmbedded) {
    ensurePrivateDir(dataDir);
    await takeDataDirLock(lockFile, dataDir);
  }
  // Each server's live processes, recorded the moment one is spawned: a service SIGKILLed while a
  // server starts (a JVM takes seconds to answer) must not leave it unrecorded, holding the data
  // files against the next start. Listed in start order (redis-server, then the database).
  const serverPids = new Map<string, number[]>();
  const recordChildren = () => {
    const children = [...serverPids.values()].flat().filter(isAlive);
    writeLockFile(lockFile, { pid: process.pid, children });
  };
  const spawned = (server: string) => (child: ManagedChild) => {
    serverPids.set(server, [...(serverPids.get(server) ?? []).filter(isAlive), child.process.pid!]);
    recordChildren();
  };
  const both =
    (...hooks: ((child: ManagedChild) => void)[]) =>
    (child: ManagedChild) => {
      for (const hook of hooks) hook(child);
    };
  const stop = async () => {
    for (const child of children.reverse()) await child.stop();
    if (needsEmbedded) rmSync(lockFile, { force: true });
  };
  const kill = () => {
    for (const pid of [...serverPids.values()].flat().filter(isAlive)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone in between.
      }
    }
  };
  try {
    let redisUrl = configuredRedis.redisUrl;
    if (!redisUrl) {
      const redis = await superviseServer({
        name: 'redis-server',
        start: (port, supervised) =>
          startRedisServer({
            dir: join(dataDir, 'redis'),
            persistent: true,
            log,
            port,
            onSpawned: both(spawned('redis-server'), supervised),
          }),
        policy,
        log,
        onRestarted: recordChildren,
        onGaveUp: () => hooks.onServerAbandoned?.('redis-server'),
      });
      children.push(redis);
      redisUrl = redis.url;
      started.push(`redis-server at ${redis.url} (append-only file in ${join(dataDir, 'redis')})`);
    }
    let mongoUri = env.MONGODB_URI;
    if (!mongoUri) {
      let engine = '';
      const mongo = await superviseServer({
        name: 'database',
        start: async (port, supervised) => {
          const server = await startMongoServer({
            dir: join(dataDir, 'mongo'),
            persistent: true,
            log,
            port,
            onSpawned: both(spawned('database'), supervised),
          });
          engine = server.engine;
          return server;
        },
        policy,
        log,
        onRestarted: recordChildren,
        onGaveUp: () => hooks.onServerAbandoned?.('database'),
      });
      children.push(mongo);
      mongoUri = mongo.url;
      started.push(`${engine} at ${mongo.url} (data in ${join(dataDir, 'mongo')})`);
    }
    const abandonedServers = () => children.filter((c) => c.gaveUp()).map((c) => c.name);
    return {
      infra: { redisUrl, redisClusterNodes: configuredRedis.redisClusterNodes, mongoUri, abandonedServers },
      started,
      stop,
      kill,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
