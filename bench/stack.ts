import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../shared/infra/embedded/child-process.js';

const root = resolve(import.meta.dirname, '..');

export interface Stack {
  baseUrl: string;
  redisUrl: string;
  mongoUri: string;
  operatorToken: string;
  stop(): Promise<void>;
}

/** `npm start`'s program in a throw-away data directory: the all-in-one service on the embedded default. */
export async function startStack(extraEnv: Record<string, string> = {}): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ats-bench-'));
  const port = await freePort();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env))
    if (v !== undefined && !/^(REDIS_URL|MONGODB_URI|OPERATOR_TOKEN)$/.test(k)) env[k] = v;
  const proc: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'scripts/start.ts'], {
    cwd: root,
    env: {
      ...env,
      DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'development',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (c) => (out += c));
  proc.stderr!.on('data', (c) => (out += c));
  const deadline = Date.now() + 120_000;
  while (!out.includes('Agent trading service is up')) {
    if (proc.exitCode !== null || Date.now() > deadline)
      throw new Error(`the service did not start:\n${out}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const redisUrl = /redis-server at (redis:\/\/\S+)/.exec(out)?.[1];
  const mongoUri = /(?:mongo-java-server|mongod) at (mongodb:\/\/\S+)/.exec(out)?.[1];
  const operatorToken = /shown only now\): (\S+)/.exec(out)?.[1];
  if (!redisUrl || !mongoUri || !operatorToken) throw new Error(`could not read the start banner:\n${out}`);
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    redisUrl,
    mongoUri,
    operatorToken,
    async stop() {
      proc.kill('SIGTERM');
      await new Promise((r) => proc.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
