import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ChaosClient, type ClientStats } from './chaos-client.js';
import { ChaosService, type EmbeddedChild } from './chaos-service.js';
import { verifyRun, type Verification } from './chaos-verify.js';

export interface ChaosPlan {
  /** Trades started by the clients: buys, sells and dry runs (resends not counted). */
  trades: number;
  /** Trades in flight at once. */
  concurrency: number;
  agents: number;
  markets: number;
  tradeWorkers: number;
  workerKills: number;
  redisKills: number;
  databaseKills: number;
  dryRunShare: number;
  sellShare: number;
  /** Share of finished trades resent at once with the same key (and again all after the run). */
  replayShare: number;
  /**
   * Split roles (issue 27): API and jobs processes besides the service's own, on its Redis and
   * database; trades and their resends go to every API in turn. 0 in the plain plans.
   */
  extraApis?: number;
  extraJobs?: number;
}

export const SHORT_PLAN: ChaosPlan = {
  trades: 300,
  concurrency: 12,
  agents: 12,
  markets: 10,
  tradeWorkers: 2,
  workerKills: 3,
  redisKills: 1,
  databaseKills: 1,
  dryRunShare: 0.1,
  sellShare: 0.3,
  replayShare: 0.1,
};

/**
 * The short run with the roles split across processes: two API processes (the service's and one
 * more) taking trades and resends in turn, two trade worker processes, two schedulers (the
 * service's and one more), under the same kills (one worker kill fewer: a shorter run).
 */
export const SPLIT_PLAN: ChaosPlan = {
  ...SHORT_PLAN,
  trades: 240,
  workerKills: 2,
  extraApis: 1,
  extraJobs: 1,
};

export const LONG_PLAN: ChaosPlan = {
  ...SHORT_PLAN,
  trades: 10_000,
  concurrency: 48,
  agents: 200,
  markets: 40,
  workerKills: 22,
  redisKills: 2,
  databaseKills: 2,
};

export interface ChaosReport {
  plan: ChaosPlan;
  seconds: number;
  tradesPerSecond: number;
  kills: { worker: number; redis: number; database: number };
  restartedByHarness: { redis: number; database: number };
  /** Extra API and jobs processes (split roles) that exited during the run and were started again. */
  roleRestarts: { api: number; jobs: number };
  client: ClientStats;
  verification: Verification;
  /** Every check that must hold, as `name: figure` lines that are not 0 (empty: the run is clean). */
  failures: string[];
  /**
   * The service's and trade workers' log lines that name a trade the failures name (the first
   * few), so that a failed run in CI, whose artifacts are gone, still says what happened to them.
   */
  traces: string[];
}

/** The report's figures, a line per subject, as the script prints them and the test quotes them. */
export function describeReport(r: ChaosReport): string {
  const v = r.verification;
  const retries = r.client.retries;
  const sum = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
  return [
    `trades: ${r.plan.trades} (${r.client.buys} buys, ${r.client.sells} sells, ${r.client.dryRuns} dry runs) in ${r.seconds} s (${r.tradesPerSecond}/s), ${r.plan.agents} agents, ${r.plan.markets} markets`,
    `kills (SIGKILL): ${r.kills.worker} trade workers, ${r.kills.redis} Redis, ${r.kills.database} database` +
      (r.restartedByHarness.redis + r.restartedByHarness.database
        ? ` (restarted by the harness, not the service: ${JSON.stringify(r.restartedByHarness)})`
        : ''),
    ...(r.plan.extraApis || r.plan.extraJobs
      ? [
          `split roles: ${1 + (r.plan.extraApis ?? 0)} API processes, ${r.plan.tradeWorkers} trade worker processes, ${1 + (r.plan.extraJobs ?? 0)} schedulers; extra processes restarted: ${JSON.stringify(r.roleRestarts)}`,
        ]
      : []),
    `answered filled: ${v.acknowledgedFilled}; refused (200 success false): ${sum(r.client.refused)} ${JSON.stringify(r.client.refused)}; final 4xx: ${JSON.stringify(r.client.rejectedHttp)}`,
    `resent with the same key: ${r.client.retriedTrades} trades (no answer ${retries.network}, 503 ${JSON.stringify(retries.unavailable)}, submitted ${retries.submitted}, other 5xx ${JSON.stringify(retries.serverErrors)}, retryable refusals ${retries.retryableRefusals})`,
    `deliberate resends: ${r.client.replays} during the run, ${v.replayed} after it; answering differently: ${r.client.replayMismatches.length + v.replayMismatches.length}`,
    `acknowledged but lost: ${v.acknowledgedButLost.length}; doubled: ${v.doubled.length}; filled but answered otherwise: ${v.filledButNotAcknowledged.length}; unfinished: ${v.unfinished}; without a final answer: ${r.client.unresolved}`,
    `idempotency answers in Redis: ${v.idempotencyKeysInRedis}, pointing at a missing trade: ${v.danglingIdempotency.length}`,
    `audit: ok ${v.audit.ok}, differences ${v.audit.difference_count}, behind ${JSON.stringify(v.audit.behind)}, checked ${JSON.stringify(v.audit.checked)}`,
    r.failures.length ? `FAILED: ${r.failures.join('; ')}` : 'all checks passed',
    ...(r.traces.length ? ['log lines naming those trades:', ...r.traces] : []),
  ].join('\n');
}

/** When each kill happens: after this many finished trades, spread over the run and apart from each other. */
function killSchedule(plan: ChaosPlan): { at: number; what: 'worker' | EmbeddedChild }[] {
  const spread = (n: number, offset: number) =>
    Array.from({ length: n }, (_, i) => Math.floor((plan.trades * (i + offset)) / (n + 1)));
  return [
    ...spread(plan.workerKills, 1).map((at) => ({ at, what: 'worker' as const })),
    ...spread(plan.redisKills, 0.75).map((at) => ({ at, what: 'redis' as const })),
    ...spread(plan.databaseKills, 1.25).map((at) => ({ at, what: 'database' as const })),
  ].sort((a, b) => a.at - b.at);
}

function failuresOf(plan: ChaosPlan, r: Omit<ChaosReport, 'failures' | 'traces'>): string[] {
  const v = r.verification;
  const serverErrors = Object.entries(r.client.retries.serverErrors).map(([k, n]) => `${k} ×${n}`);
  const must: [string, string[]][] = [
    ['acknowledged but lost', v.acknowledgedButLost],
    ['doubled', v.doubled],
    ['filled but answered otherwise', v.filledButNotAcknowledged],
    ['idempotency answers pointing at a missing trade', v.danglingIdempotency],
    ['replays answering differently (during the run)', r.client.replayMismatches],
    ['replays answering differently (after the run)', v.replayMismatches],
    ['audit differences', v.audit.differences.map((d) => JSON.stringify(d))],
    ['trades never finished', v.unfinishedTrades],
    ['trades without a final answer', Array.from({ length: r.client.unresolved }, () => 'unresolved')],
    ['5xx other than 503', serverErrors],
  ];
  // A figure and its first examples, which name the keys and trades to look up.
  const failures = must
    .filter(([, found]) => found.length !== 0)
    .map(([name, found]) => `${name}: ${found.length} (${found.slice(0, 3).join('; ')})`);
  if (!v.audit.ok) failures.push('audit: not ok');
  for (const [what, planned] of [
    ['worker', plan.workerKills],
    ['redis', plan.redisKills],
    ['database', plan.databaseKills],
  ] as const)
    if (r.kills[what] < planned) failures.push(`${what} kills: ${r.kills[what]} of ${planned}`);
  return failures;
}

const TRACED_TRADES = 3;
const TRACE_LINES = 40;

/** Log lines of the service and the trade workers that name a trade id the failures mention. */
function tracesOf(failures: string[], service: ChaosService): string[] {
  const ids = [
    ...new Set(
      failures.join(' ').match(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g) ?? [],
    ),
  ].slice(0, TRACED_TRADES);
  if (!ids.length) return [];
  const lines = `${service.service.output()}\n${service.workersOutput()}\n${service.rolesOutput()}`.split(
    '\n',
  );
  return lines.filter((line) => ids.some((id) => line.includes(id))).slice(0, TRACE_LINES);
}

/**
 * A chaos run: the service as `npm start` runs it (trade workers in their own processes), many
 * agents trading at random through the HTTP API while trade workers, the embedded Redis and the
 * embedded database are SIGKILLed on a schedule, then the checks of chaos-verify.ts.
 */
export async function runChaos(
  plan: ChaosPlan,
  log: (line: string) => void,
  /**
   * Where the service's own output (warnings and errors) is written at the end; the trade workers'
   * goes beside it, in `workers.log`.
   */
  serviceLogFile?: string,
): Promise<ChaosReport> {
  const runId = randomBytes(3).toString('hex');
  const dataDir = mkdtempSync(join(tmpdir(), 'ats-chaos-'));
  const operatorToken = randomBytes(24).toString('base64url');
  const service = await ChaosService.start({
    dataDir,
    operatorToken,
    tradeWorkers: plan.tradeWorkers,
    embeddedKills: Math.max(plan.redisKills, plan.databaseKills),
    extraApis: plan.extraApis ?? 0,
    extraJobs: plan.extraJobs ?? 0,
    log,
  });
  try {
    const client = new ChaosClient(service.bases, runId);
    await client.setUp(plan.agents, plan.markets);
    log(
      `${plan.agents} agents on ${plan.markets} markets; ${plan.trades} trades with ${plan.concurrency} in flight`,
    );
    const schedule = killSchedule(plan);
    let embeddedKills = Promise.resolve();
    let finished = 0;
    const onFinished = () => {
      finished++;
      while (schedule.length && schedule[0]!.at <= finished) {
        const { what } = schedule.shift()!;
        if (what === 'worker') {
          if (!service.killWorker())
            schedule.unshift({ at: finished + 1, what }); // none up yet: soon again
          else log(`${finished} trades: SIGKILL a trade worker (${service.kills.worker})`);
        } else {
          // One embedded kill at a time: each waits for its child to be back.
          embeddedKills = embeddedKills.then(async () => {
            log(`${finished} trades: SIGKILL the embedded ${what}`);
            await service.killEmbedded(what);
          });
        }
      }
    };
    const started = Date.now();
    const watchdog = setInterval(() => service.died && client.abort(), 500);
    let begun = 0;
    await Promise.all(
      Array.from({ length: plan.concurrency }, async () => {
        while (begun < plan.trades && !service.died) {
          begun++;
          await client.tradeOnce(plan);
          onFinished();
        }
      }),
    );
    clearInterval(watchdog);
    await embeddedKills;
    if (service.died) throw new Error(service.died);
    const seconds = (Date.now() - started) / 1000;
    log(`trading done in ${seconds.toFixed(0)} s; verifying`);
    const verification = await verifyRun({
      base: service.base,
      redisUrl: service.redisUrl,
      mongoUri: service.mongoUri,
      operatorToken,
      agents: client.agents,
      trades: client.trades,
      keyPrefix: `chaos-${runId}-`,
    });
    const report = {
      plan,
      seconds: Math.round(seconds),
      tradesPerSecond: Math.round((plan.trades / seconds) * 10) / 10,
      kills: { ...service.kills },
      restartedByHarness: { ...service.restartedByHarness },
      roleRestarts: { ...service.roleRestarts },
      client: client.stats,
      verification,
    };
    const failures = failuresOf(plan, report);
    return { ...report, failures, traces: tracesOf(failures, service) };
  } finally {
    await service.stop();
    if (serviceLogFile) {
      writeFileSync(serviceLogFile, service.service.output());
      writeFileSync(join(dirname(serviceLogFile), 'workers.log'), service.workersOutput());
      if (plan.extraApis || plan.extraJobs)
        writeFileSync(join(dirname(serviceLogFile), 'roles.log'), service.rolesOutput());
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}
