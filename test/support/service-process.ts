import { spawn, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import { freePort } from '../../shared/infra/embedded/child-process.js';

const root = resolve(import.meta.dirname, '../..');

export interface ServiceProcess {
  proc: ChildProcess;
  /** Everything the process printed so far. */
  output: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/**
 * `npm start`'s program (scripts/start.ts) as a child process on `port` with its data in `dataDir`,
 * resolved once its start banner is printed. The caller's REDIS_URL/MONGODB_URI/OPERATOR_TOKEN are
 * not inherited: `env` decides (none = the embedded default).
 */
export async function startServiceProcess(
  dataDir: string,
  port: number,
  env: Record<string, string> = {},
): Promise<ServiceProcess> {
  const inherited: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(REDIS_URL|MONGODB_URI|OPERATOR_TOKEN|PORT|DATA_DIR)$/.test(k))
      inherited[k] = v;
  }
  // `npm run bench` with BENCH_CPU_PROF_DIR set profiles the service (a V8 .cpuprofile per run).
  const profile = process.env.BENCH_CPU_PROF_DIR
    ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF_DIR]
    : [];
  const proc = spawn(process.execPath, [...profile, '--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env: {
      ...inherited,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  const deadline = Date.now() + 120_000;
  while (!out.includes('Agent trading service is up')) {
    if (proc.exitCode !== null) throw new Error(`the service exited early (${proc.exitCode}):\n${out}`);
    if (Date.now() > deadline) {
      proc.kill('SIGKILL');
      throw new Error(`the service did not come up in time:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { proc, output: () => out, exited };
}

/**
 * `startServiceProcess` on a free port, with its base URL: `env` is given the base URL it will
 * have. A free port is only free until someone binds it (the service's own emulators and embedded
 * servers bind ports of their own while it starts): when another took it first, the service stops
 * with EADDRINUSE and is started again on another port.
 */
export async function startServiceOnFreePort(
  dataDir: string,
  env: (base: string) => Record<string, string> = () => ({}),
  attempts = 3,
): Promise<{ service: ServiceProcess; base: string }> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    try {
      return { service: await startServiceProcess(dataDir, port, env(base)), base };
    } catch (err) {
      if (attempt >= attempts || !/EADDRINUSE/.test((err as Error).message)) throw err;
    }
  }
}
