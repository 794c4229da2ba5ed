import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCaptured } from './run-captured.js';

const root = resolve(import.meta.dirname, '../..');

/**
 * The official Python client's `simmer` command (simmer-sdk[backtest], pinned in
 * test/backtest/requirements.txt): `npm test` installs it into .cache/simmer-sdk-venv
 * (scripts/setup.mjs), or SIMMER_SDK_VENV names another venv that has it. Null when absent.
 */
export function simmerCommand(): string | null {
  const venv = process.env.SIMMER_SDK_VENV ?? join(root, '.cache', 'simmer-sdk-venv');
  const bin = join(venv, 'bin', 'simmer');
  return existsSync(bin) ? bin : null;
}

/**
 * The Python of the official client at the version the published skills were written for (0.24.x,
 * test/fixtures/clients/requirements-0.24.txt), which `npm test` installs into
 * .cache/simmer-sdk-0.24-venv beside the pinned 0.26.0 one (scripts/setup.mjs). Without it the
 * `test` asking is skipped, except under CI. A skill suite runs a skill with it by handing
 * runSkillCopy `{ ...s, python }`.
 */
export function skillsClientPython(test: Mocha.Context): string {
  const python = join(root, '.cache', 'simmer-sdk-0.24-venv', 'bin', 'python');
  if (existsSync(python)) return python;
  assert.ok(!process.env.CI, 'no simmer-sdk 0.24 venv: npm test installs it (scripts/setup.mjs)');
  return test.skip();
}

/** The figures of the summary `simmer backtest` prints (cli.py `_print_summary`). */
export interface BacktestSummary {
  pnl: number | null;
  decisions: number;
  trades: number;
  marketsTraded: number;
  ticks: number;
  /** `tape markets N/M served`: present only when the tape came with a manifest. */
  tapeServed: number | null;
  tapeRequested: number | null;
  failedTicks: number;
}

export interface BacktestRun {
  code: number | null;
  stdout: string;
  stderr: string;
  summary: BacktestSummary | null;
  /** The full report (`--out`), when the run wrote one. */
  report: { summary: Record<string, unknown>; bundle?: { failed_ticks?: number } } | null;
}

/** Parses the summary block of `simmer backtest`; null when it printed none (a failed run). */
export function parseBacktestSummary(stdout: string): BacktestSummary | null {
  const activity = /activity\s+(\d+) decisions · (\d+) trades · (\d+) markets · (\d+) ticks/.exec(stdout);
  if (!activity) return null;
  const pnl = /pnl\s+([+-][\d,]+\.\d+)/.exec(stdout);
  const tape = /tape markets (\d+)\/(\d+) served/.exec(stdout);
  const failed = /(\d+) tick\(s\) exited non-zero/.exec(stdout);
  return {
    pnl: pnl ? Number(pnl[1]!.replace(/,/g, '')) : null,
    decisions: Number(activity[1]),
    trades: Number(activity[2]),
    marketsTraded: Number(activity[3]),
    ticks: Number(activity[4]),
    tapeServed: tape ? Number(tape[1]) : null,
    tapeRequested: tape ? Number(tape[2]) : null,
    failedTicks: failed ? Number(failed[1]) : 0,
  };
}

/** A clean environment for the client's Python programs: only PATH, HOME (`home`) and UTF-8 output. */
export const pythonEnv = (home: string): Record<string, string> => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  LANG: 'C.UTF-8',
  PYTHONIOENCODING: 'utf-8',
});

/**
 * Runs `simmer <args>` with a clean environment: HOME (where the client caches tapes, ~/.simmer/tapes)
 * and the candles cache in `home`, SIMMER_API_KEY when given. Resolves when it exits (killed after
 * `timeoutMs`); `reportFile` is read back when the args name it with `--out`.
 */
export async function runSimmer(
  command: string,
  args: string[],
  opts: { home: string; apiKey?: string; reportFile?: string; timeoutMs?: number },
): Promise<BacktestRun> {
  const env: Record<string, string> = {
    ...pythonEnv(opts.home),
    REPLAY_KLINES_CACHE_DIR: join(opts.home, 'klines'),
    ...(opts.apiKey ? { SIMMER_API_KEY: opts.apiKey } : {}),
  };
  const run = await runCaptured(command, args, { cwd: root, env, timeoutMs: opts.timeoutMs ?? 300_000 });
  const report =
    opts.reportFile && existsSync(opts.reportFile)
      ? (JSON.parse(readFileSync(opts.reportFile, 'utf8')) as BacktestRun['report'])
      : null;
  return { ...run, summary: parseBacktestSummary(run.stdout), report };
}

/** Everything a failed assertion on a run should show. */
export const describeRun = (run: BacktestRun) =>
  `exit ${run.code}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr.slice(-4000)}`;
