import assert from 'node:assert/strict';
import { isAlive, spawnManaged, type ManagedChild } from '../../shared/infra/embedded/child-process.js';
import type { EmbeddedServer } from '../../shared/infra/embedded/redis-server.js';
import { restartDelayMs, superviseServer } from '../../shared/infra/embedded/supervisor.js';
import { createLogger } from '../../shared/infra/logger.js';
import { capturingLogger } from '../support/capture.js';

const log = createLogger('silent', 'test');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Restarts the supervisor scheduled: it logs each one when it schedules it, at the exit. */
const scheduledRestarts = (lines: string[]) =>
  lines.filter((l) => l.includes('exited; restarting it')).length;

/** A stand-in server: a `sleep` process, "listening" on the port it was given (or 4321). */
function sleeperStarts() {
  const ports: (number | undefined)[] = [];
  const start = async (port?: number): Promise<EmbeddedServer> => {
    ports.push(port);
    return { url: `redis://127.0.0.1:${port ?? 4321}`, child: spawnManaged('sleeper', 'sleep', ['60'], log) };
  };
  return { start, ports };
}

async function until(what: string, check: () => boolean, timeoutMs = 5000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(20);
  }
}

describe('superviseServer: restarts with backoff and a circuit #integration', () => {
  it('when the restart delays are computed, then they double from 250 ms up to 10 s', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map(restartDelayMs),
      [250, 500, 1000, 2000, 4000, 8000, 10_000, 10_000],
    );
  });

  it('when the server exits, then it is started again on the port it had and the new pid is reported', async () => {
    const { start, ports } = sleeperStarts();
    let restarts = 0;
    const server = await superviseServer({
      name: 'sleeper',
      start,
      policy: { maxFailures: 3, windowMs: 60_000 },
      log,
      onRestarted: () => restarts++,
    });
    try {
      const first = server.pid();
      process.kill(first, 'SIGKILL');
      await until('a restart', () => restarts === 1);
      assert.deepEqual(ports, [undefined, 4321]);
      assert.notEqual(server.pid(), first);
      assert.ok(isAlive(server.pid()));
      assert.equal(server.url, 'redis://127.0.0.1:4321');
      assert.equal(server.gaveUp(), false);
    } finally {
      await server.stop();
    }
  });

  it('when the server exits maxFailures times within the window, then the circuit opens and it is left down', async () => {
    const { start, ports } = sleeperStarts();
    const { log: captured, lines } = capturingLogger('warn', 'test');
    const server = await superviseServer({
      name: 'sleeper',
      start,
      policy: { maxFailures: 2, windowMs: 60_000 },
      log: captured,
    });
    try {
      const first = server.pid();
      process.kill(first, 'SIGKILL');
      await until('a restart', () => ports.length === 2 && server.pid() !== first);
      process.kill(server.pid(), 'SIGKILL');
      await until('the circuit opens', () => server.gaveUp());
      // The exit that opened the circuit scheduled nothing (a restart is scheduled at the exit).
      assert.equal(scheduledRestarts(lines), 1, 'only the first exit was restarted');
      assert.equal(ports.length, 2, 'no start after the circuit opened');
    } finally {
      await server.stop();
    }
  });

  it('when exits are further apart than the window, then they never open the circuit', async () => {
    const { start, ports } = sleeperStarts();
    let now = 0;
    const server = await superviseServer({
      name: 'sleeper',
      start,
      policy: { maxFailures: 2, windowMs: 1000 },
      log,
      clock: () => now,
    });
    try {
      for (let i = 1; i <= 3; i++) {
        now += 5000;
        const pid = server.pid();
        process.kill(pid, 'SIGKILL');
        await until(`restart ${i}`, () => ports.length === i + 1 && server.pid() !== pid);
      }
      assert.equal(server.gaveUp(), false);
    } finally {
      await server.stop();
    }
  });

  it('when a restart fails to start, then that counts as an exit and it is tried again after a longer delay', async () => {
    const { start: sleeper, ports } = sleeperStarts();
    const start = async (port?: number) => {
      if (ports.length === 1) {
        ports.push(port);
        throw new Error('port still taken');
      }
      return sleeper(port);
    };
    let restarts = 0;
    const server = await superviseServer({
      name: 'sleeper',
      start,
      policy: { maxFailures: 3, windowMs: 60_000 },
      log,
      onRestarted: () => restarts++,
    });
    try {
      process.kill(server.pid(), 'SIGKILL');
      await until('a restart after the failed one', () => restarts === 1);
      assert.deepEqual(ports, [undefined, 4321, 4321]);
      assert.equal(server.gaveUp(), false);
    } finally {
      await server.stop();
    }
  });

  it('when it is stopped while a restart is still starting, then that process is ended at once, not awaited', async () => {
    const { start: sleeper } = sleeperStarts();
    const spawnedPids: number[] = [];
    // The restart's process runs but never answers (a JVM still starting): ready only if it exits.
    const start = async (port: number | undefined, spawned: (child: ManagedChild) => void) => {
      const server = await sleeper(port);
      const pid = server.child.process.pid!;
      spawnedPids.push(pid);
      spawned(server.child);
      if (spawnedPids.length === 1) return server;
      await new Promise((resolve) => server.child.process.once('exit', resolve));
      throw new Error('exited before it was ready');
    };
    const server = await superviseServer({
      name: 'sleeper',
      start,
      policy: { maxFailures: 3, windowMs: 60_000 },
      log,
    });
    process.kill(server.pid(), 'SIGKILL');
    await until('the restart spawned its process', () => spawnedPids.length === 2);
    // That start never finishes: stop() answering at all shows it did not wait for it.
    await server.stop();
    await until('the starting process exited', () => !isAlive(spawnedPids[1]!));
  });

  it('when it is stopped, then the server stops and is not restarted', async () => {
    const { start, ports } = sleeperStarts();
    const { log: captured, lines } = capturingLogger('warn', 'test');
    const server = await superviseServer({
      name: 'sleeper',
      start,
      policy: { maxFailures: 3, windowMs: 60_000 },
      log: captured,
    });
    const pid = server.pid();
    await server.stop();
    assert.equal(isAlive(pid), false);
    // Its exit (awaited by stop()) scheduled no restart: one would be scheduled, and logged, at the exit.
    assert.equal(scheduledRestarts(lines), 0);
    assert.equal(ports.length, 1);
  });
});
