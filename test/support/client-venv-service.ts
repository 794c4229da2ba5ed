import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { startServiceOnFreePort, type ServiceProcess } from './service-process.js';
import { pythonEnv, simmerCommand } from './simmer-backtest.js';
import { runCaptured } from './run-captured.js';

/** What `useClientVenvService`'s `before` sets up. */
export interface ClientVenvService {
  /** The Python of the official client's venv. */
  python: string;
  /** A scratch folder of the suite's own (the service's DATA_DIR is `data` inside it). */
  scratch: string;
  dataDir: string;
  base: string;
  service: ServiceProcess;
}

/**
 * The hooks of a suite that runs Python programs with the official client's venv (simmer-sdk, which
 * `npm test` installs into .cache/simmer-sdk-venv, scripts/setup.mjs) against `npm start`'s program:
 * `before` starts the service on a free port with `env` (given its base URL) in a scratch folder,
 * or skips the suite without the venv (except under CI); `after` stops it and removes the folder.
 * The object answered is filled in by `before`.
 */
export function useClientVenvService(
  name: string,
  env: (base: string) => Record<string, string>,
): ClientVenvService {
  const s = {} as ClientVenvService;
  before(async function () {
    this.timeout(180_000);
    const simmer = simmerCommand();
    if (!simmer) {
      // Not an npm package: `npm test` installs it into .cache/simmer-sdk-venv (scripts/setup.mjs).
      assert.ok(!process.env.CI, 'no simmer-sdk venv: npm test installs it (scripts/setup.mjs)');
      return this.skip();
    }
    s.python = join(dirname(simmer), 'python');
    s.scratch = mkdtempSync(join(tmpdir(), `ats-${name}-`));
    s.dataDir = join(s.scratch, 'data');
    Object.assign(s, await startServiceOnFreePort(s.dataDir, env));
  });
  after(async () => {
    if (s.service) {
      s.service.proc.kill('SIGTERM');
      await s.service.exited;
    }
    if (s.scratch) rmSync(s.scratch, { recursive: true, force: true });
  });
  return s;
}

/** A JSON call to a running service or emulator: the answer's body, or an assertion naming the status. */
export async function jsonCall<T>(url: string, method: string, body?: unknown, token?: string): Promise<T> {
  const res = await fetch(url, {
    method,
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `${method} ${url}: ${res.status} ${text}`);
  return JSON.parse(text) as T;
}

/** The base URL of a venue's host whose URL ends with `suffix`, from a running service's operator venue list. */
async function venueHost(
  base: string,
  operatorToken: string,
  venue: string,
  suffix: string,
): Promise<string> {
  const venues = await jsonCall<{ venues: { venue: string; hosts: { base_url: string }[] }[] }>(
    `${base}/api/admin/venues`,
    'GET',
    undefined,
    operatorToken,
  );
  const url = venues.venues
    .find((v) => v.venue === venue)!
    .hosts.find((h) => h.base_url.endsWith(suffix))!.base_url;
  return url.slice(0, -suffix.length);
}

/** The admin base URL of the Polymarket emulator a `VENUES=emulated` service runs against, from its operator venue list. */
export async function polymarketEmulatorAdmin(base: string, operatorToken: string): Promise<string> {
  return `${await venueHost(base, operatorToken, 'polymarket', '/clob')}/__admin`;
}

/** The admin base URL of the Kalshi emulator (test/emulators/kalshi/KALSHI.md) a `VENUES=emulated` service runs against. */
export async function kalshiEmulatorAdmin(base: string, operatorToken: string): Promise<string> {
  return `${await venueHost(base, operatorToken, 'kalshi', '/trade-api/v2')}/__admin`;
}

/**
 * Runs a published skill unmodified from a copy of its folder (skills may write config.json beside
 * themselves; the vendored copy stays byte for byte), with the agent's key and the service's URL,
 * and `env`: the settings its SKILL.md names (TRADING_VENUE, a feed URL, ...).
 */
export async function runSkillCopy(
  s: ClientVenvService,
  dir: string,
  script: string,
  apiKey: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  return runInSkillCopy(s, dir, (copy) => [join(copy, script), ...args], apiKey, env);
}

/**
 * Runs `python -c code ...args` in a copy of a skill's folder (its working directory, so the code
 * imports the skill as a module), otherwise as runSkillCopy. For a skill that reads a third-party
 * host from a module constant and from no env var: the code imports it, points the constant at a
 * loopback stand-in and calls its entry point, the skill's file unmodified.
 */
export async function runSkillModule(
  s: ClientVenvService,
  dir: string,
  code: string,
  apiKey: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  return runInSkillCopy(s, dir, () => ['-c', code, ...args], apiKey, env);
}

async function runInSkillCopy(
  s: ClientVenvService,
  dir: string,
  argv: (copy: string) => string[],
  apiKey: string,
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const copy = mkdtempSync(join(s.scratch, 'skill-'));
  cpSync(dir, copy, { recursive: true });
  const run = await runCaptured(s.python, argv(copy), {
    cwd: copy,
    env: {
      ...pythonEnv(mkdtempSync(join(s.scratch, 'home-'))),
      SIMMER_API_URL: s.base,
      SIMMER_API_KEY: apiKey,
      ...env,
    },
    timeoutMs: 180_000,
  });
  return { code: run.code, output: run.stdout + run.stderr };
}
