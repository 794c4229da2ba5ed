import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ManagedChild } from '../../shared/infra/embedded/child-process.js';
import { startRedisServer } from '../../shared/infra/embedded/redis-server.js';
import { superviseServer, type SupervisedServer } from '../../shared/infra/embedded/supervisor.js';
import { createLogger } from '../../shared/infra/logger.js';

const log = createLogger('silent', 'lifecycle-test');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The processes still running (zombies aside) that belong to the tree of these pids: the pids
 * themselves and every member of their process groups (each managed child leads its own group, so
 * its descendants are found even after they were re-parented). Read from /proc.
 */
function survivors(pids: number[]): number[] {
  const leaders = new Set(pids);
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // pid (comm) state ppid pgrp …; comm may contain spaces, so split after its closing parenthesis.
    const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z') continue;
    if (leaders.has(Number(entry)) || leaders.has(Number(pgrp))) found.push(Number(entry));
  }
  return found;
}

async function until(what: string, check: () => boolean, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await sleep(25);
  }
}

describe('embedded children end with their service #integration', function () {
  this.timeout(60_000);
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'embedded-lifecycle-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A supervised real redis-server; every process it spawns is listed in `pids`. */
  async function supervisedRedis(onSpawn: (child: ManagedChild, nth: number) => void = () => undefined) {
    const pids: number[] = [];
    const server: SupervisedServer = await superviseServer({
      name: 'redis-server',
      start: (port, supervised) =>
        startRedisServer({
          dir,
          persistent: false,
          log,
          port,
          onSpawned: (child) => {
            pids.push(child.process.pid!);
            supervised(child);
            onSpawn(child, pids.length);
          },
        }),
      policy: { maxFailures: 5, windowMs: 60_000 },
      log,
    });
    return { server, pids };
  }

  it('when the stop comes while a restarted redis-server is starting, then no process of the tree survives', async () => {
    let stopping: Promise<void> | undefined;
    const holder: { server?: SupervisedServer } = {};
    // The stop arrives the moment the restart's process runs, before it answers.
    const { server, pids } = await supervisedRedis((_child, nth) => {
      if (nth === 2) stopping = holder.server!.stop();
    });
    holder.server = server;
    assert.deepEqual(survivors(pids), [pids[0]], 'the first redis-server runs');
    process.kill(pids[0]!, 'SIGKILL');
    await until('the restart spawned its process', () => pids.length === 2);
    await stopping;
    assert.deepEqual(survivors(pids), [], `none of ${pids.join(', ')} survives the stop`);
    await sleep(1000);
    assert.equal(pids.length, 2, 'nothing is started after the stop');
  });

  it('when the stop comes while a restart is pending, then the restart never happens and nothing survives', async () => {
    const { server, pids } = await supervisedRedis();
    process.kill(pids[0]!, 'SIGKILL');
    await until('the first redis-server exited', () => survivors(pids).length === 0);
    await server.stop(); // within the 250 ms backoff
    await sleep(1000);
    assert.equal(pids.length, 1, 'the pending restart was cancelled');
    assert.deepEqual(survivors(pids), []);
  });

  it('when a restarted redis-server runs, then stop ends it and the first one stays gone', async () => {
    const { server, pids } = await supervisedRedis();
    process.kill(pids[0]!, 'SIGKILL');
    await until('a restart', () => pids.length === 2 && server.pid() === pids[1]);
    assert.deepEqual(survivors(pids), [pids[1]]);
    await server.stop();
    assert.deepEqual(survivors(pids), []);
  });

  it('when the parent is killed with SIGKILL, then its managed child dies with it', async () => {
    const root = resolve(import.meta.dirname, '../..');
    const parent = spawn(
      process.execPath,
      ['--import', 'tsx', 'test/fixtures/lifecycle/managed-child-parent.ts'],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let out = '';
    parent.stdout.on('data', (c) => (out += c));
    try {
      await until('the parent started its child', () => /child \d+/.test(out), 30_000);
      const child = Number(/child (\d+)/.exec(out)![1]);
      assert.deepEqual(survivors([child]), [child]);
      parent.kill('SIGKILL');
      await until('the orphaned child is gone', () => survivors([child]).length === 0, 5000);
    } finally {
      parent.kill('SIGKILL');
    }
  });
});
