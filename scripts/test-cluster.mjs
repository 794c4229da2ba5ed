// `npm run test:cluster`: the Redis-heavy integration tests on a real Redis Cluster (3 masters, 3
// replicas, Debian's redis-server on loopback), then a short failover pass: a master SIGKILLed
// while trades run, its replica promoted, nothing acknowledged lost. Every redis-server started here
// is stopped and the data directory removed afterwards, also on failure or Ctrl-C.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';

const MASTERS = 3;
const NODES = MASTERS * 2;
/** Short, so the failover pass promotes a replica within seconds (the default is 15 s). */
const NODE_TIMEOUT_MS = 2000;

/**
 * The tests that use Redis the most: trades (request-reply over BullMQ, the batcher, the money
 * stress), idempotency, limits (the ADMIT/RELEASE scripts), monitors and the queue itself.
 * Left out: queue-wait-redis-loss.test.ts starts and SIGKILLs a single redis-server of its own (no
 * cluster involved); the failover pass below is its cluster counterpart.
 */
const TEST_FILES = [
  'test/integration/trading.test.ts',
  'test/integration/trading-stress.test.ts',
  'test/integration/trade-batch-race.test.ts',
  'test/integration/trade-batch-venues.test.ts',
  'test/integration/trade-batcher-stall.test.ts',
  'test/integration/idempotency-fingerprint.test.ts',
  'test/integration/idempotency-redis-loss.test.ts',
  'test/integration/limits.test.ts',
  'test/integration/limits-legacy-keys.test.ts',
  'test/integration/position-monitors.test.ts',
  'test/integration/queue.test.ts',
  'test/integration/reconcile-redis.test.ts',
];
const FAILOVER_FILE = 'test/cluster/master-failover.ts';
/** `npm run test:cluster -- <files>`: only these files on the cluster, without the failover pass. */
const ONLY = process.argv.slice(2);

const MOCHA = [
  'node_modules/.bin/mocha',
  '--no-config',
  '--node-option',
  'import=tsx',
  '--require',
  'test/support/hooks.ts',
  '--timeout',
  '30000',
  '--exit',
];

const dir = mkdtempSync(join(tmpdir(), 'ats-cluster-'));
/** port → redis-server process */
const servers = new Map();
let cleanedUp = false;

function cleanUp() {
  if (cleanedUp) return;
  cleanedUp = true;
  for (const child of servers.values()) {
    if (child.exitCode === null && child.signalCode === null) {
      try {
        child.kill('SIGKILL');
      } catch {
        // Gone in between.
      }
    }
  }
  rmSync(dir, { recursive: true, force: true });
}
process.on('exit', cleanUp);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => {
    console.error(`[test:cluster] ${signal}: stopping the cluster`);
    cleanUp();
    process.exit(130);
  });
}

function portFree(port) {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Ports whose cluster bus port (port + 10000) is free too. */
async function freePorts(n) {
  const ports = [];
  for (let tries = 0; ports.length < n && tries < 2000; tries++) {
    const port = 20000 + Math.floor(Math.random() * 35000);
    if (ports.includes(port) || ports.includes(port + 10000) || ports.includes(port - 10000)) continue;
    if ((await portFree(port)) && (await portFree(port + 10000))) ports.push(port);
  }
  if (ports.length < n) throw new Error('no free ports for the cluster');
  return ports;
}

const cli = (port, ...args) =>
  spawnSync('redis-cli', ['-h', '127.0.0.1', '-p', String(port), ...args], { encoding: 'utf8' });

async function waitFor(what, check, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return;
    await sleep(200);
  }
  throw new Error(`timed out waiting for ${what}`);
}

function run(command, args, env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: 'inherit', env: { ...process.env, ...env } });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function startCluster() {
  const ports = await freePorts(NODES);
  for (const port of ports) {
    const nodeDir = join(dir, String(port));
    mkdirSync(nodeDir, { recursive: true });
    const out = openSync(join(nodeDir, 'redis.log'), 'a');
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        nodeDir,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-node-timeout',
        String(NODE_TIMEOUT_MS),
        '--maxmemory-policy',
        'noeviction',
        '--save',
        '',
        '--appendonly',
        'no',
        '--daemonize',
        'no',
      ],
      { stdio: ['ignore', out, out] },
    );
    servers.set(port, child);
  }
  for (const port of ports)
    await waitFor(`redis-server on ${port}`, () => cli(port, 'PING').stdout.trim() === 'PONG');
  const create = spawnSync(
    'redis-cli',
    [
      '--cluster',
      'create',
      ...ports.map((p) => `127.0.0.1:${p}`),
      '--cluster-replicas',
      '1',
      '--cluster-yes',
    ],
    { encoding: 'utf8' },
  );
  if (create.status !== 0)
    throw new Error(`redis-cli --cluster create failed:\n${create.stdout}\n${create.stderr}`);
  await waitFor('cluster_state:ok on every node', () =>
    ports.every((p) => /cluster_state:ok/.test(cli(p, 'CLUSTER', 'INFO').stdout)),
  );
  // Every replica attached and in sync with its master.
  await waitFor('every replica in sync', () => {
    const nodes = cli(ports[0], 'CLUSTER', 'NODES').stdout.trim().split('\n');
    return (
      nodes.filter((l) => / slave /.test(l)).length === MASTERS && nodes.every((l) => / connected/.test(l))
    );
  });
  return ports;
}

async function main() {
  console.log(`[test:cluster] starting ${MASTERS} masters + ${MASTERS} replicas under ${dir}`);
  const ports = await startCluster();
  const nodes = ports.map((p) => `127.0.0.1:${p}`).join(',');
  const pidsFile = join(dir, 'pids.json');
  writeFileSync(pidsFile, JSON.stringify(Object.fromEntries([...servers].map(([p, c]) => [p, c.pid]))));
  console.log(`[test:cluster] cluster_state:ok at ${nodes}`);
  const env = { TEST_REDIS_CLUSTER_NODES: nodes, TEST_REDIS_CLUSTER_PIDS: pidsFile };
  const setup = await run('node', ['scripts/setup.mjs', '--for-tests'], env);
  if (setup !== 0) return setup;
  const files = ONLY.length ? ONLY : TEST_FILES;
  console.log(`[test:cluster] integration tests on the cluster: ${files.length} files`);
  const tests = await run(MOCHA[0], [...MOCHA.slice(1), ...files], env);
  if (ONLY.length) return tests;
  console.log('[test:cluster] failover pass: a master SIGKILLed while trades run');
  const failover = await run(MOCHA[0], [...MOCHA.slice(1), '--timeout', '180000', FAILOVER_FILE], env);
  console.log(
    `[test:cluster] integration tests ${tests === 0 ? 'passed' : 'FAILED'}, failover pass ${failover === 0 ? 'passed' : 'FAILED'}`,
  );
  return tests || failover;
}

main()
  .then((code) => {
    cleanUp();
    process.exit(code);
  })
  .catch((err) => {
    console.error(`[test:cluster] ${err instanceof Error ? err.message : String(err)}`);
    cleanUp();
    process.exit(1);
  });
