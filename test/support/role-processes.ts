import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '../../shared/infra/embedded/child-process.js';
import { testContext } from './context.js';

const root = resolve(import.meta.dirname, '../..');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The three entry points docker-compose.yml runs as services (`npm run start:api|workers|jobs`). */
export type RoleName = 'api' | 'workers' | 'jobs';

const ENTRY: Record<RoleName, string> = {
  api: 'api/server.ts',
  workers: 'workers/main.ts',
  jobs: 'jobs/main.ts',
};

export interface RoleProcess {
  role: RoleName;
  proc: ChildProcess;
  /** The API's base URL; for workers and jobs, their health server (GET /healthz/live). */
  url: string;
  /** Everything the process printed so far (pino JSON lines on stdout, anything else on stderr). */
  output(): string;
  exited: Promise<number | null>;
}

/**
 * The settings of this test run that a role process needs to be part of the same deployment: the
 * run's Redis and database, its data directory (the generated JWT secret lives there), its venue
 * emulators and the test-friendly limits the root hooks set. `prefix` is the deployment's
 * QUEUE_PREFIX: give a group of processes their own, so that the run's in-process workers (on the
 * run's prefix) never take their jobs.
 */
export function deploymentEnv(prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  const ctx = testContext();
  const e = ctx.env;
  const copied: Record<string, string> = {};
  for (const key of [
    'POLYMARKET_GAMMA_URL',
    'POLYMARKET_CLOB_URL',
    'POLYMARKET_DATA_URL',
    'POLYGON_RPC_URL',
    'POLYMARKET_RELAYER_URL',
    'KALSHI_BASE_URL',
    'DFLOW_TRADE_API_URL',
    'DFLOW_METADATA_API_URL',
    'DFLOW_PROOF_API_URL',
    'SOLANA_RPC_URL',
    'BINANCE_BASE_URL',
  ] as const) {
    const v = (e as unknown as Record<string, unknown>)[key];
    if (typeof v === 'string' && v) copied[key] = v;
  }
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    REDIS_URL: ctx.redisUrl,
    MONGODB_URI: ctx.mongoUri,
    MONGODB_DB: e.MONGODB_DB,
    QUEUE_PREFIX: prefix,
    DATA_DIR: e.DATA_DIR,
    OPERATOR_TOKEN: ctx.operatorToken,
    TRUST_PROXY: 'loopback',
    PUBLIC_BASE_URL: 'http://localhost:8080',
    READ_CACHE_SECONDS: '0',
    SIM_COOLDOWN_SECONDS: '0',
    FAILED_TRADE_COOLDOWN_SECONDS: '0',
    VENUE_TIMEOUT_MS: '1000',
    VENUE_RETRIES: '1',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    ...copied,
    ...extra,
  };
}

/**
 * Starts one role as its own OS process, as a compose service runs it (`node --import tsx
 * <entry>`, REDIS_URL and MONGODB_URI set, no embedded servers), and resolves once it answers on
 * its port: the API on its routes, workers and jobs on their health server.
 */
export async function startRoleProcess(
  role: RoleName,
  env: Record<string, string>,
  /** A port of its own by default; a restarted process takes its predecessor's. */
  port?: number,
): Promise<RoleProcess> {
  port ??= await freePort();
  const proc = spawn(process.execPath, ['--import', 'tsx', ENTRY[role]], {
    cwd: root,
    env: { ...env, PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`${role} exited early (${proc.exitCode}):\n${out}`);
    const up = await fetch(`${url}/healthz/live`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`${role} did not come up in time:\n${out}`);
    }
    await sleep(200);
  }
  return { role, proc, url, output: () => out, exited };
}

/** SIGTERM (graceful shutdown), then SIGKILL past `graceMs`. */
export async function stopRoleProcess(p: RoleProcess, graceMs = 20_000): Promise<number | null> {
  if (p.proc.exitCode === null) p.proc.kill('SIGTERM');
  const code = await Promise.race([p.exited, sleep(graceMs).then(() => 'late' as const)]);
  if (code !== 'late') return code;
  p.proc.kill('SIGKILL');
  return p.exited;
}

/**
 * The compose topology as separate OS processes on one Redis and one database: `apis` API
 * processes, `workers` worker processes (every queue, as compose's `workers` service runs them:
 * no WORKER_QUEUES) and `jobs` scheduler processes. They start in parallel.
 */
export async function startSplitDeployment(
  counts: { apis: number; workers: number; jobs: number },
  env: Record<string, string>,
): Promise<{ apis: RoleProcess[]; workers: RoleProcess[]; jobs: RoleProcess[]; all: RoleProcess[] }> {
  const started: RoleProcess[] = [];
  const start = (role: RoleName, n: number) =>
    Promise.all(
      Array.from({ length: n }, async () => {
        const p = await startRoleProcess(role, env);
        started.push(p);
        return p;
      }),
    );
  try {
    // The workers first: an API's first trade then finds a consumer at once.
    const workers = await start('workers', counts.workers);
    const [apis, jobs] = await Promise.all([start('api', counts.apis), start('jobs', counts.jobs)]);
    return { apis, workers, jobs, all: [...apis, ...workers, ...jobs] };
  } catch (err) {
    // One did not come up: the others must not outlive the caller.
    await Promise.allSettled(started.map((p) => stopRoleProcess(p, 5000)));
    throw err;
  }
}
