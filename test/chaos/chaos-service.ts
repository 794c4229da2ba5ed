import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePort, isAlive } from '../../shared/infra/embedded/child-process.js';
import { startMongoServer } from '../../shared/infra/embedded/mongo-server.js';
import { startRedisServer, type EmbeddedServer } from '../../shared/infra/embedded/redis-server.js';
import { createLogger } from '../../shared/infra/logger.js';
import { QUEUE_NAMES } from '../../shared/infra/queue/queues.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import {
  startRoleProcess,
  stopRoleProcess,
  type RoleName,
  type RoleProcess,
} from '../support/role-processes.js';

const root = resolve(import.meta.dirname, '../..');
const portOf = (url: string) => Number(new URL(url).port);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The embedded children `npm start` supervises, in the order its lock file lists their pids. */
export const EMBEDDED_CHILDREN = ['redis', 'database'] as const;
export type EmbeddedChild = (typeof EMBEDDED_CHILDREN)[number];

/**
 * Settings of the run that differ from a bare `npm start`: agents may trade the same market sides
 * over and over all day (as the benchmarks), and clients come from many addresses (X-Forwarded-For,
 * trusted from loopback), so per-IP registration limits stay on.
 */
const CHAOS_ENV = {
  TRUST_PROXY: 'loopback',
  SIM_COOLDOWN_SECONDS: '0',
  FAILED_TRADE_COOLDOWN_SECONDS: '0',
  TIER_MAX_TRADES_PER_DAY: '1000000,1000000,1000000',
  LOG_LEVEL: 'warn',
};

/**
 * A job whose worker was SIGKILLed is taken up again once its lock expires: 5 s instead of the
 * default 30 s, so that the trades in hand at a kill finish within the API's 25 s wait.
 */
const WORKER_LOCK_DURATION_MS = '5000';

export interface ChaosServiceOptions {
  dataDir: string;
  operatorToken: string;
  /** Separate `npm run start:workers` processes consuming the trades queue (the ones killed). */
  tradeWorkers: number;
  /**
   * The most SIGKILLs planned for one embedded child: the service's restart budget is set above it,
   * so that it is the service that brings each one back, not the harness's fallback.
   */
  embeddedKills: number;
  /**
   * Split roles: this many more API processes (api/server.ts) and jobs processes (jobs/main.ts) on
   * the service's Redis and database, as compose's scaled services; the clients spread trades (and
   * resends) over every API. 0 for both: the all-in-one service alone takes the traffic.
   */
  extraApis?: number;
  extraJobs?: number;
  log: (line: string) => void;
}

/**
 * `npm start` (API, scheduler, embedded Redis and database under supervision) with its trades queue
 * moved out into separate worker processes, as a scaled deployment runs them: `npm start` runs its
 * workers inside its own process, so SIGKILLing "a worker" there would kill the API too. Here the
 * service's WORKER_QUEUES leaves `trades` out, and `tradeWorkers` processes (workers/main.ts with
 * WORKER_QUEUES=trades on the embedded Redis and database) take every trade.
 */
export class ChaosService {
  readonly base: string;
  /** Every API process's base URL: the service's first, then the extra API processes'. */
  readonly bases: string[] = [];
  /** The extra API and jobs processes (split roles), by role; restarted when one exits. */
  private readonly roleProcesses = new Set<RoleProcess>();
  /** Every extra API and jobs process started, those that exited included: their output is evidence. */
  private readonly everyRoleProcess: RoleProcess[] = [];
  /** Extra role processes that exited during the run and were started again. */
  readonly roleRestarts = { api: 0, jobs: 0 };
  readonly redisUrl: string;
  readonly mongoUri: string;
  private readonly workers = new Map<number, ChildProcess>();
  /** Every trade worker's output (warnings and errors), each line led by its pid: read after a failed run. */
  private readonly workerOutput: string[] = [];
  /** Children this harness started again itself (when no supervisor restarted them). */
  private readonly selfRestarted = new Map<EmbeddedChild, EmbeddedServer>();
  private stopping = false;
  /** Set when the service process exits while the run goes on (it must not: the run is void). */
  died: string | null = null;
  readonly kills = { worker: 0, redis: 0, database: 0 };
  /** Kills after which the harness, not the service, had to start the child again. */
  readonly restartedByHarness = { redis: 0, database: 0 };

  private constructor(
    private readonly opts: ChaosServiceOptions,
    readonly service: ServiceProcess,
    port: number,
  ) {
    this.base = `http://127.0.0.1:${port}`;
    this.bases.push(this.base);
    const out = service.output();
    const redis = /Started redis-server at (redis:\/\/\S+)/.exec(out);
    const mongo = /Started \S+ at (mongodb:\/\/\S+)/.exec(out);
    if (!redis || !mongo)
      throw new Error(`the service did not start its own Redis and database (chaos kills them):\n${out}`);
    this.redisUrl = redis[1]!;
    this.mongoUri = mongo[1]!;
  }

  static async start(opts: ChaosServiceOptions): Promise<ChaosService> {
    const port = await freePort();
    const service = await startServiceProcess(opts.dataDir, port, {
      ...CHAOS_ENV,
      OPERATOR_TOKEN: opts.operatorToken,
      WORKER_QUEUES: QUEUE_NAMES.filter((q) => q !== 'trades').join(','),
      EMBEDDED_RESTART_MAX_FAILURES: String(opts.embeddedKills + 1),
    });
    const chaos = new ChaosService(opts, service, port);
    void service.exited.then((code) => {
      if (chaos.stopping) return;
      chaos.died = `the service exited (${code}) during the run; its last output:\n${service.output().slice(-6000)}`;
      opts.log(chaos.died);
    });
    for (let i = 0; i < opts.tradeWorkers; i++) chaos.spawnWorker();
    try {
      for (let i = 0; i < (opts.extraApis ?? 0); i++) chaos.bases.push((await chaos.startRole('api')).url);
      for (let i = 0; i < (opts.extraJobs ?? 0); i++) await chaos.startRole('jobs');
    } catch (err) {
      await chaos.stop();
      throw err;
    }
    return chaos;
  }

  /**
   * An extra API or jobs process on the service's Redis and database. One that exits during the run
   * (a database outage can end it, as the watchdog decides) is started again on the same port, as an
   * orchestrator would, and counted.
   */
  private async startRole(role: Extract<RoleName, 'api' | 'jobs'>, port?: number): Promise<RoleProcess> {
    const inherited: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !/^(REDIS_URL|MONGODB_URI|OPERATOR_TOKEN|PORT|DATA_DIR|WORKER_)/.test(k))
        inherited[k] = v;
    const p = await startRoleProcess(
      role,
      {
        ...inherited,
        ...CHAOS_ENV,
        NODE_ENV: 'development',
        REDIS_URL: this.redisUrl,
        MONGODB_URI: this.mongoUri,
        DATA_DIR: this.opts.dataDir,
        OPERATOR_TOKEN: this.opts.operatorToken,
        HOST: '127.0.0.1',
      },
      port,
    );
    this.roleProcesses.add(p);
    this.everyRoleProcess.push(p);
    void p.exited.then((code) => {
      this.roleProcesses.delete(p);
      if (this.stopping) return;
      this.roleRestarts[role]++;
      this.opts.log(
        `an extra ${role} process exited (${code}): ${p.output().trim().split('\n').at(-1)}; starting it again`,
      );
      const again = (): void =>
        void this.startRole(role, Number(new URL(p.url).port)).catch((err: unknown) => {
          if (this.stopping) return;
          this.opts.log(`the ${role} process did not start again (${String(err).split('\n')[0]}); retrying`);
          setTimeout(again, 2000);
        });
      setTimeout(again, 500);
    });
    return p;
  }

  /** Everything the extra API and jobs processes printed, those that exited and were replaced included. */
  rolesOutput(): string {
    return this.everyRoleProcess
      .map(
        (p) =>
          `[${p.role} ${p.proc.pid}${p.proc.exitCode !== null ? `, exited ${p.proc.exitCode}` : ''}]\n${p.output()}`,
      )
      .join('\n');
  }

  private spawnWorker(): void {
    const inherited: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env))
      if (v !== undefined && !/^(REDIS_URL|MONGODB_URI|OPERATOR_TOKEN|PORT|DATA_DIR|WORKER_)/.test(k))
        inherited[k] = v;
    void freePort().then((port) => {
      if (this.stopping) return;
      const child = spawn(process.execPath, ['--import', 'tsx', 'workers/main.ts'], {
        cwd: root,
        env: {
          ...inherited,
          ...CHAOS_ENV,
          NODE_ENV: 'development',
          REDIS_URL: this.redisUrl,
          MONGODB_URI: this.mongoUri,
          DATA_DIR: this.opts.dataDir,
          OPERATOR_TOKEN: this.opts.operatorToken,
          WORKER_QUEUES: 'trades',
          WORKER_LOCK_DURATION_MS,
          PORT: String(port),
          HOST: '127.0.0.1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stderr = '';
      const keep = (c: unknown) =>
        this.workerOutput.push(
          ...String(c)
            .split('\n')
            .filter(Boolean)
            .map((line) => `[worker ${child.pid}] ${line}`),
        );
      child.stdout!.on('data', keep);
      child.stderr!.on('data', (c) => {
        keep(c);
        stderr = (stderr + String(c)).slice(-4000);
      });
      this.workers.set(child.pid!, child);
      child.once('exit', (code, signal) => {
        this.workers.delete(child.pid!);
        if (this.stopping) return;
        // Killed by us: started again at once, as an orchestrator would. Anything else is a crash
        // worth reading about, and the worker is started again too.
        if (signal === 'SIGKILL') return this.spawnWorker();
        this.opts.log(
          `a trade worker exited by itself (${signal ?? code}): ${stderr.trim().split('\n').at(-1)}`,
        );
        setTimeout(() => this.spawnWorker(), 1000);
      });
    });
  }

  /** What the trade workers printed, in order of arrival. */
  workersOutput(): string {
    return this.workerOutput.join('\n');
  }

  /** Trade worker processes running now. */
  runningWorkers(): number {
    return this.workers.size;
  }

  /** SIGKILLs one trade worker process (another is started in its place); false when none runs yet. */
  killWorker(): boolean {
    const pids = [...this.workers.keys()];
    if (!pids.length) return false;
    const pid = pids[Math.floor(Math.random() * pids.length)]!;
    this.workers.get(pid)!.kill('SIGKILL');
    this.kills.worker++;
    return true;
  }

  /** The pid the service's lock file names, or the one the harness started when that one is dead. */
  private embeddedPid(which: EmbeddedChild): number {
    const state = JSON.parse(readFileSync(join(this.opts.dataDir, 'embedded.pid'), 'utf8')) as {
      children: number[];
    };
    const recorded = state.children[EMBEDDED_CHILDREN.indexOf(which)]!;
    const ours = this.selfRestarted.get(which)?.child.process.pid;
    return !isAlive(recorded) && ours !== undefined ? ours : recorded;
  }

  /**
   * SIGKILLs the embedded Redis or database child and waits until one runs again on its port. The
   * service's supervisor restarts it; should none do so within `restartWithinMs`, the harness starts
   * the same command line itself (and says so in the report), so the run goes on either way.
   */
  async killEmbedded(which: EmbeddedChild, restartWithinMs = 30_000): Promise<void> {
    const pid = this.embeddedPid(which);
    process.kill(pid, 'SIGKILL');
    this.kills[which]++;
    const deadline = Date.now() + restartWithinMs;
    while (Date.now() < deadline) {
      await sleep(200);
      const now = this.embeddedPid(which);
      if (now !== pid && isAlive(now)) return;
    }
    this.opts.log(
      `${which} was not restarted by the service within ${restartWithinMs} ms: restarting it here`,
    );
    // What infrastructure.ts starts: the same data directory and port.
    const opts = { persistent: true, log: createLogger('silent', 'chaos') };
    const server =
      which === 'redis'
        ? await startRedisServer({
            ...opts,
            dir: join(this.opts.dataDir, 'redis'),
            port: portOf(this.redisUrl),
          })
        : await startMongoServer({
            ...opts,
            dir: join(this.opts.dataDir, 'mongo'),
            port: portOf(this.mongoUri),
          });
    this.selfRestarted.set(which, server);
    this.restartedByHarness[which]++;
  }

  /** Stops the workers, then the service (which stops its embedded children). */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all([...this.roleProcesses].map((p) => stopRoleProcess(p)));
    const workers = [...this.workers.values()];
    for (const w of workers) w.kill('SIGTERM');
    await Promise.race([
      Promise.all(
        workers.map((w) => new Promise((r) => (w.exitCode !== null ? r(null) : w.once('exit', r)))),
      ),
      sleep(20_000),
    ]);
    for (const w of workers) if (w.exitCode === null) w.kill('SIGKILL');
    if (this.service.proc.exitCode === null) {
      this.service.proc.kill('SIGTERM');
      await Promise.race([this.service.exited, sleep(40_000)]);
      if (this.service.proc.exitCode === null) this.service.proc.kill('SIGKILL');
    }
    for (const server of this.selfRestarted.values()) await server.child.stop();
  }
}
