// `npm run chaos [-- --short] [--trades <n>] [--concurrency <n>] [--agents <n>] [--markets <n>]
//   [--worker-kills <n>] [--redis-kills <n>] [--database-kills <n>]`: the chaos run of issue 16.
// Starts the service as `npm start` does (embedded Redis and database under supervision, API,
// scheduler) with its trades queue in separate worker processes, trades at random through the HTTP
// API from many agents on many sim markets (buys, sells, dry runs, resends with the same
// idempotency key) while SIGKILLing trade workers, the embedded Redis and the embedded database,
// then checks: every trade answered filled is in the database once, no key placed two trades, no
// idempotency answer in Redis points at a missing trade, every resend answers as the first request,
// and the ledger audit (GET /api/admin/audit) finds no difference.
//
// Without options: the long run (10,000 trades, 22 worker kills, 2 of Redis, 2 of the database).
// --short: the CI size that `npm test` runs too (test/integration/chaos.test.ts).
// --split: the roles split across processes (issue 27): one more API process and one more jobs
//   process on the service's Redis and database, trades and resends sent to both APIs in turn;
//   `--short --split` is the split case of test/integration/chaos.test.ts.
// The report goes to .cache/chaos-report/report.json (the service's output to service.log, the trade workers' to workers.log); the exit code is 1 when any check failed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  LONG_PLAN,
  SHORT_PLAN,
  SPLIT_PLAN,
  describeReport,
  runChaos,
  type ChaosPlan,
} from '../test/chaos/run-chaos.js';

const root = resolve(import.meta.dirname, '..');
const arg = (name: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : undefined;
};

const short = process.argv.includes('--short');
const split = process.argv.includes('--split');
const base = short
  ? split
    ? SPLIT_PLAN
    : SHORT_PLAN
  : split
    ? { ...LONG_PLAN, extraApis: 1, extraJobs: 1 }
    : LONG_PLAN;
const plan: ChaosPlan = {
  ...base,
  trades: arg('trades') ?? base.trades,
  concurrency: arg('concurrency') ?? base.concurrency,
  agents: arg('agents') ?? base.agents,
  markets: arg('markets') ?? base.markets,
  workerKills: arg('worker-kills') ?? base.workerKills,
  redisKills: arg('redis-kills') ?? base.redisKills,
  databaseKills: arg('database-kills') ?? base.databaseKills,
};

const log = (line: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${line}`);

const dir = join(root, '.cache', 'chaos-report');
mkdirSync(dir, { recursive: true });
const report = await runChaos(plan, log, join(dir, 'service.log'));
writeFileSync(join(dir, 'report.json'), JSON.stringify(report, null, 2));
console.log(describeReport(report));
console.log(`report: ${join(dir, 'report.json')}`);
process.exit(report.failures.length ? 1 : 0);
