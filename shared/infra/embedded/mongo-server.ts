import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import mongoose from 'mongoose';
import type { Logger } from '../logger.js';
import { ensurePrivateDir } from '../private-files.js';
import { freePort, spawnManaged, waitUntilReady, type ManagedChild } from './child-process.js';
import type { EmbeddedServer } from './redis-server.js';

const projectRoot = resolve(import.meta.dirname, '../../..');
const LAUNCHER = join(projectRoot, 'scripts', 'mongo-java-server', 'Launcher.java');
const CLASSPATH_FILE = join(projectRoot, '.cache', 'mongo-java-server', 'classpath.txt');

const onPath = (bin: string) => spawnSync('sh', ['-c', `command -v ${bin}`]).status === 0;

export type MongoEngine = 'mongod' | 'mongo-java-server';

/** The engine the embedded default runs: a `mongod` on the PATH, else mongo-java-server. */
export const embeddedMongoEngine = (): MongoEngine => (onPath('mongod') ? 'mongod' : 'mongo-java-server');

/**
 * A MongoDB-wire server as a child process: a real `mongod` when one is on the PATH, else the
 * mongo-java-server launcher (H2 file in `dir` when persistent, memory otherwise). The launcher's
 * classpath is prepared by `npm run setup`.
 */
export async function startMongoServer(opts: {
  dir: string;
  persistent: boolean;
  log: Logger;
  /** A restart reuses the port clients know; a first start takes a free one. */
  port?: number;
  /** The server's process as soon as it runs, before it answers (a JVM takes seconds to). */
  onSpawned?: (child: ManagedChild) => void;
}): Promise<EmbeddedServer & { engine: MongoEngine }> {
  ensurePrivateDir(opts.dir);
  const port = opts.port ?? (await freePort());
  const engine = embeddedMongoEngine();
  let child;
  if (engine === 'mongod') {
    const dbPath = join(opts.dir, 'mongod');
    ensurePrivateDir(dbPath);
    child = spawnManaged(
      'mongod',
      'mongod',
      ['--dbpath', dbPath, '--port', String(port), '--bind_ip', '127.0.0.1', '--quiet'],
      opts.log,
    );
  } else {
    if (!existsSync(CLASSPATH_FILE)) {
      throw new Error(
        'mongo-java-server is not prepared: run `npm run setup` (needs Java 17 and Maven), or set MONGODB_URI.',
      );
    }
    const classpath = readFileSync(CLASSPATH_FILE, 'utf8').trim();
    const args = ['-Xss1m', '-cp', classpath, LAUNCHER, '--port', String(port)];
    if (opts.persistent) args.push('--h2', join(opts.dir, 'mongo-java-server.mv'));
    child = spawnManaged('mongo-java-server', 'java', args, opts.log);
  }
  if (child.process.pid) opts.onSpawned?.(child);
  const uri = `mongodb://127.0.0.1:${port}`;
  await waitUntilReady(
    child,
    async () => {
      const client = new mongoose.mongo.MongoClient(uri, {
        serverSelectionTimeoutMS: 500,
        connectTimeoutMS: 500,
      });
      try {
        await client.connect();
        await client.db('admin').command({ ping: 1 });
      } finally {
        await client.close();
      }
    },
    // The first JVM start compiles the launcher source; allow for a slow, busy machine.
    60_000,
  );
  return { url: uri, child, engine };
}
