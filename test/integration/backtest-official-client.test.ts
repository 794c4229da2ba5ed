import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { freePort } from '../../shared/infra/embedded/child-process.js';
import { startServiceProcess, type ServiceProcess } from '../support/service-process.js';
import { runCaptured } from '../support/run-captured.js';
import { describeRun, runSimmer, simmerCommand } from '../support/simmer-backtest.js';

const root = resolve(import.meta.dirname, '../..');
const BUNDLE = join(root, 'examples', 'backtest-skill');
const ENTRYPOINT = 'mean_reversion.py';
/** Markets of scripts/make-sample-tape.ts above the client's default volume floor (1000): all but one. */
const SAMPLE_MARKETS_SERVED = 5;

const DAY_MS = 86_400_000;
const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);

/** Writes the sample tape (scripts/make-sample-tape.ts) into `dir`, its prints ending before `end`. */
async function sampleTape(dir: string, end: string) {
  const { writeSampleTape } = await import('../../scripts/make-sample-tape.js');
  await writeSampleTape(dir, end, 3);
  return { markets: join(dir, 'markets.parquet'), quant: join(dir, 'quant.parquet') };
}

/** `npm run <script> -- <args>` in the project with DATA_DIR set, as an operator runs it; its exit and output. */
async function npmRun(
  script: string,
  args: string[],
  dataDir: string,
): Promise<{ code: number | null; output: string }> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(REDIS_URL|MONGODB_URI|OPERATOR_TOKEN|PORT|DATA_DIR|NODE_ENV)$/.test(k))
      env[k] = v;
  }
  const run = await runCaptured('npm', ['run', script, '--', ...args], {
    cwd: root,
    env: { ...env, DATA_DIR: dataDir, NODE_ENV: 'development' },
    timeoutMs: 180_000,
  });
  return { code: run.code, output: run.stdout + run.stderr };
}

describe('backtests with the official Python client (`simmer backtest`, simmer-sdk 0.26.0) #integration', function () {
  this.timeout(600_000);
  let simmer: string;
  let scratch: string;

  before(function () {
    const command = simmerCommand();
    if (!command) {
      // Not an npm package: `npm test` installs it into .cache/simmer-sdk-venv (scripts/setup.mjs).
      assert.ok(!process.env.CI, 'no simmer-sdk venv: npm test installs it (scripts/setup.mjs)');
      return this.skip();
    }
    simmer = command;
    scratch = mkdtempSync(join(tmpdir(), 'ats-backtest-'));
  });
  after(() => scratch && rmSync(scratch, { recursive: true, force: true }));

  it('when the example skill replays the sample tape from disk, then it buys and sells and every tick exits cleanly', async () => {
    const home = mkdtempSync(join(scratch, 'home-'));
    const tape = join(scratch, 'local-tape');
    await sampleTape(tape, '2026-03-05');
    const reportFile = join(home, 'report.json');
    // The window is the tape's middle day; the bundle is the one in the repo, unmodified.
    const run = await runSimmer(
      simmer,
      [
        'backtest',
        BUNDLE,
        '--entrypoint',
        ENTRYPOINT,
        '--tape',
        tape,
        '--t0',
        '2026-03-03',
        '--t1',
        '2026-03-04',
        '--cadence',
        '1h',
        '--no-candles',
        '--out',
        reportFile,
      ],
      { home, reportFile },
    );
    assert.equal(run.code, 0, describeRun(run));
    assert.ok(run.summary, describeRun(run));
    assert.equal(run.summary.ticks, 25, describeRun(run));
    assert.equal(run.summary.failedTicks, 0, describeRun(run));
    assert.ok(run.summary.trades >= 4, `the skill trades every market that swings:\n${describeRun(run)}`);
    assert.ok(run.report, 'the full report was written');
    const fills = (run.report as { fills?: { action: string }[] }).fills ?? [];
    assert.ok(
      fills.some((f) => f.action === 'buy') && fills.some((f) => f.action === 'sell'),
      `buys below 0.40 and sells above 0.60: ${JSON.stringify(fills.slice(0, 6))}`,
    );
  });

  // The tape store of issue 25: POST /api/backtest/tape, GET /api/backtest/tape/coverage and
  // `npm run tape:import`, as the client uses them.
  describe('against the service, on a tape imported with `npm run tape:import`', () => {
    let dataDir: string;
    let service: ServiceProcess | undefined;
    let base: string;

    before(async function () {
      this.timeout(180_000);
      dataDir = mkdtempSync(join(scratch, 'data-'));
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      // The signed tape URLs are absolute: they must name the address the client reaches.
      service = await startServiceProcess(dataDir, port, { PUBLIC_BASE_URL: base });
    });
    after(async () => {
      if (!service) return;
      service.proc.kill('SIGTERM');
      await service.exited;
    });

    it('when `simmer backtest --window 1d --base-url <service>` runs the example skill, then it fetches the slice from the service, replays every market of it, trades and exits 0', async () => {
      const register = await fetch(`${base}/api/sdk/agents/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'backtester' }),
      });
      assert.equal(register.status, 200);
      const { api_key: apiKey } = (await register.json()) as { api_key: string };
      const auth = { authorization: `Bearer ${apiKey}` };

      // Three days of prints through the end of today (UTC). `--window 1d` replays the day before
      // coverage_t1 (the client keeps only its date); the service names the day after the last day
      // with prints, and the day after today while its recorder is live, either way today here. A
      // store that named the last day itself would replay yesterday: prints there too.
      const today = isoDate(Date.now());
      const tomorrow = isoDate(Date.parse(today) + DAY_MS);
      const files = await sampleTape(join(scratch, 'import-tape'), tomorrow);
      const imported = await npmRun(
        'tape:import',
        ['--markets', files.markets, '--quant', files.quant],
        dataDir,
      );
      assert.equal(imported.code, 0, `npm run tape:import:\n${imported.output}`);

      const coverage = await fetch(`${base}/api/backtest/tape/coverage`, { headers: auth });
      const coverageBody = (await coverage.json()) as { coverage_t1?: unknown };
      assert.equal(coverage.status, 200, JSON.stringify(coverageBody));
      assert.equal(typeof coverageBody.coverage_t1, 'string', JSON.stringify(coverageBody));
      const t1 = (coverageBody.coverage_t1 as string).slice(0, 10);
      assert.ok(
        [today, tomorrow].includes(t1),
        `coverage_t1 ${String(coverageBody.coverage_t1)} after importing prints through ${today} 23:59`,
      );
      const t0 = isoDate(Date.parse(t1) - DAY_MS);

      // The slice the client will ask for (its defaults: 300 markets, volume from 1000).
      const slice = await fetch(`${base}/api/backtest/tape`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ t0, t1, max_markets: 300, min_volume: 1000.0 }),
      });
      const tape = (await slice.json()) as {
        key: string;
        urls: { markets: string; quant: string; manifest?: string };
        markets: number;
        markets_served?: number;
        markets_matching_filter?: number;
        truncated?: boolean;
      };
      assert.equal(slice.status, 200, JSON.stringify(tape));
      // The client makes the key a folder name under ~/.simmer/tapes.
      assert.match(tape.key, /^[A-Za-z0-9][\w.-]*$/, 'the key is safe as a folder name');
      assert.equal(tape.markets, SAMPLE_MARKETS_SERVED, JSON.stringify(tape));
      assert.equal(tape.markets_served, SAMPLE_MARKETS_SERVED, JSON.stringify(tape));
      assert.equal(tape.markets_matching_filter, SAMPLE_MARKETS_SERVED, JSON.stringify(tape));
      assert.equal(tape.truncated, false);
      for (const url of [tape.urls.markets, tape.urls.quant, tape.urls.manifest]) {
        assert.equal(typeof url, 'string', JSON.stringify(tape.urls));
        const got = await fetch(url!); // no credentials, as the client fetches them
        assert.equal(got.status, 200, `${url}: ${await got.text()}`);
      }

      const home = mkdtempSync(join(scratch, 'home-'));
      const reportFile = join(home, 'report.json');
      const run = await runSimmer(
        simmer,
        [
          'backtest',
          BUNDLE,
          '--entrypoint',
          ENTRYPOINT,
          '--window',
          '1d',
          '--base-url',
          base,
          // 25 ticks instead of the default 97 (15m): each tick starts the skill as a new Python process.
          '--cadence',
          '1h',
          '--out',
          reportFile,
        ],
        { home, apiKey, reportFile },
      );
      assert.equal(run.code, 0, describeRun(run));
      assert.match(run.stdout, new RegExp(`requesting tape slice ${t0}\\.\\.${t1}`), describeRun(run));
      // The tape lands in the client's cache under its key (not necessarily the key above: the running
      // recorder's writes make a new dataset revision, hence a new key, within a minute).
      const ready = /tape ready → (\S+)/.exec(run.stdout);
      assert.ok(ready, describeRun(run));
      assert.equal(dirname(ready[1]!), join(home, '.simmer', 'tapes'), describeRun(run));
      assert.ok(existsSync(join(ready[1]!, 'quant.parquet')), describeRun(run));
      assert.ok(run.summary, describeRun(run));
      assert.equal(run.summary.tapeServed, SAMPLE_MARKETS_SERVED, describeRun(run));
      assert.equal(run.summary.failedTicks, 0, describeRun(run));
      assert.equal(run.summary.ticks, 25, describeRun(run));
      assert.ok(run.summary.trades > 0, describeRun(run));
      assert.ok(run.summary.marketsTraded > 0, describeRun(run));
    });
  });
});
