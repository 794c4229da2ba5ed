import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../shared/infra/logger.js';

/** A logger whose lines (pino JSON, one per entry) land in `lines`, for tests that read the log. */
export function capturingLogger(level: string, name: string): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const capture = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { log: createLogger(level, name, capture), lines };
}

/** A loopback TCP port nobody listens on right now, for servers a test starts on a given port. */
export async function freePort(): Promise<number> {
  const probe = createServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}
