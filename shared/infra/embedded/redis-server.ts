import { Redis } from 'ioredis';
import type { Logger } from '../logger.js';
import { ensurePrivateDir } from '../private-files.js';
import { freePort, spawnManaged, waitUntilReady, type ManagedChild } from './child-process.js';

export interface EmbeddedServer {
  url: string;
  child: ManagedChild;
}

/**
 * Debian's redis-server as a child process. `persistent` turns on the append-only file in `dir`
 * (the embedded default); tests run without persistence. noeviction is what BullMQ requires.
 */
export async function startRedisServer(opts: {
  dir: string;
  persistent: boolean;
  log: Logger;
  /** A restart reuses the port clients know; a first start takes a free one. */
  port?: number;
  /** The server's process as soon as it runs, before it answers (a JVM takes seconds to). */
  onSpawned?: (child: ManagedChild) => void;
}): Promise<EmbeddedServer> {
  ensurePrivateDir(opts.dir);
  const port = opts.port ?? (await freePort());
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    opts.dir,
    '--maxmemory-policy',
    'noeviction',
    '--save',
    '',
    '--appendonly',
    opts.persistent ? 'yes' : 'no',
    '--appendfsync',
    'everysec',
    '--daemonize',
    'no',
  ];
  const child = spawnManaged('redis-server', 'redis-server', args, opts.log);
  if (child.process.pid) opts.onSpawned?.(child);
  const url = `redis://127.0.0.1:${port}`;
  await waitUntilReady(
    child,
    async () => {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        await probe.ping();
      } finally {
        probe.disconnect();
      }
    },
    20_000,
  );
  return { url, child };
}
