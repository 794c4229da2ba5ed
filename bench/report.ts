// The markdown of `npm run bench`: one table per part, the goals (bench/goals.ts) against the same run,
// and the generated section of docs/benchmarks.md (between the bench markers; the prose and the
// history above it are kept).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  COLD_START,
  COMMANDS_PER_BUY,
  HISTORY,
  REACTOR_P99,
  READ_P99,
  READ_SHARE_OF_BARE_HTTP,
  SCALING,
  TRADE_P99,
  TRADE_SHARE_OF_NO_OP,
} from './goals.js';
import type { Row } from './measure.js';
import type {
  ColdStartResults,
  CommandCount,
  Latency,
  ReactorResults,
  ReadResults,
  ScalingResults,
  SplitTradeResults,
  TradeResults,
} from './results.js';

export const SECTION_START = '<!-- bench:start -->';
export const SECTION_END = '<!-- bench:end -->';

export interface BenchResults {
  trades?: TradeResults;
  reads?: ReadResults;
  scaling?: ScalingResults;
  coldStart?: ColdStartResults;
  commands?: CommandCount;
  reactor?: ReactorResults;
  /** Parts that threw, by name. */
  failures: { part: string; error: string }[];
}

/** 1 decimal at most, thousands separated. */
export const fmt = (x: number | null | undefined): string =>
  x === null || x === undefined || Number.isNaN(x)
    ? '–'
    : (Math.round(x * 10) / 10).toLocaleString('en-US', { maximumFractionDigits: 1 });
const pct = (x: number) => `${fmt(x * 100)} %`;
const table = (head: string[], rows: (string | number)[][]) =>
  [
    `| ${head.join(' | ')} |`,
    `|${head.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
const rowCells = (r: Row) => [
  r.what,
  r.connections,
  fmt(r.offered),
  fmt(r.rps),
  fmt(r.p50),
  fmt(r.p99),
  r.errors,
];
const ROW_HEAD = ['what', 'connections', 'offered req/s', 'req/s', 'p50 ms', 'p99 ms', 'errors'];

/** CPU per trade by kind of process, one line per closed-loop row that measured it. */
function cpuLines(t: TradeResults): string[] {
  const measured = t.closed.filter((c) => c.cpuMsPerTrade);
  if (!measured.length) return [];
  return [
    'CPU per trade (ms, user + system, by kind of process; the load generator left out): ' +
      measured
        .map(
          (c) =>
            `${c.connections} connections ` +
            Object.entries(c.cpuMsPerTrade!)
              .map(([kind, ms]) => `${kind} ${fmt(ms)}`)
              .join(', '),
        )
        .join('; ') +
      '.',
    '',
  ];
}

export function tradeTables(t: TradeResults): string {
  const closed = t.closed.flatMap((c) => [c.noOp, c.trade]);
  const ratios = t.closed
    .map((c) => `${c.connections} connections ${pct(c.trade.rps / c.noOp.rps)}`)
    .join(', ');
  const first = t.closed[0];
  return [
    `### Trades (${t.agents} agents × ${t.markets} markets, ${t.seconds} s per row)`,
    '',
    table(ROW_HEAD, [rowCells(t.bareHttp), ...closed.map(rowCells)]),
    '',
    `Sim trade throughput / no-op round trip: ${ratios}` +
      (first
        ? `; trade / bare HTTP (${first.connections} connections): ${pct(first.trade.rps / t.bareHttp.rps)}.`
        : '.'),
    '',
    ...cpuLines(t),
    `#### Latency vs offered load (paced, at most ${t.curve[0]?.trade.connections ?? '–'} in flight)`,
    '',
    table(
      [
        'offered req/s',
        'no-op req/s',
        'no-op p50 ms',
        'no-op p99 ms',
        'trade req/s',
        'trade p50 ms',
        'trade p99 ms',
        'trade errors',
      ],
      t.curve.map((c) => [
        c.rate,
        fmt(c.noOp.rps),
        fmt(c.noOp.p50),
        fmt(c.noOp.p99),
        fmt(c.trade.rps),
        fmt(c.trade.p50),
        fmt(c.trade.p99),
        c.trade.errors + c.noOp.errors,
      ]),
    ),
    ...(t.split ? ['', splitTradeTable(t, t.split)] : []),
  ].join('\n');
}

/**
 * The 2 + 2-process rows beside the one-process rows of the same load: each load once, the
 * all-in-one figures on the left (– where this run had no such row), the split ones on the right.
 */
export function splitTradeTable(t: TradeResults, s: SplitTradeResults): string {
  const one = (connections: number, rate: number | null) =>
    rate === null
      ? t.closed.find((c) => c.connections === connections)?.trade
      : t.curve.find((c) => c.rate === rate)?.trade;
  const rows = [
    ...s.closed.map((c) => ({
      load: `closed loop, ${c.connections} connections`,
      mine: c.trade,
      base: one(c.connections, null),
    })),
    ...s.paced.map((p) => ({ load: `paced at ${p.rate}/s`, mine: p.trade, base: one(0, p.rate) })),
  ];
  const label = `${s.apis} API + ${s.workers} worker processes`;
  return [
    `#### ${label} (and ${s.jobs} jobs process) on one Redis and one database, ${s.seconds} s per row`,
    '',
    table(
      [
        'load',
        'one process req/s',
        'p50 ms',
        'p99 ms',
        `${s.apis}+${s.workers} req/s`,
        'p50 ms',
        'p99 ms',
        'errors',
        `${s.apis}+${s.workers} / one`,
      ],
      rows.map((r) => [
        r.load,
        fmt(r.base?.rps),
        fmt(r.base?.p50),
        fmt(r.base?.p99),
        fmt(r.mine.rps),
        fmt(r.mine.p50),
        fmt(r.mine.p99),
        r.mine.errors,
        r.base ? pct(r.mine.rps / r.base.rps) : '–',
      ]),
    ),
    '',
    `Closed-loop rows: one autocannon per API with half the connections; p50 is their request-weighted mean, p99 the higher of the two. Every process shares this machine's cores with Redis, the database and the load generator.`,
  ].join('\n');
}

export function readTables(r: ReadResults): string {
  return [
    `### Reads (${fmt(r.markets)} markets, ${fmt(r.agents)} agents, ${r.connections} connections, ${r.seconds} s per row; seeding took ${fmt(r.seededSeconds)} s)`,
    '',
    table(
      ['read', 'req/s', '% of bare HTTP', 'p50 ms', 'p99 ms', 'errors'],
      [r.bareHttp, ...r.closed].map((x) => [
        x.what,
        fmt(x.rps),
        pct(x.rps / r.bareHttp.rps),
        fmt(x.p50),
        fmt(x.p99),
        x.errors,
      ]),
    ),
    '',
    `#### Paced at ${r.rate} req/s (at most ${r.connections} in flight)`,
    '',
    table(
      ['read', 'req/s', 'p50 ms', 'p99 ms', 'errors'],
      r.paced.map((x) => [x.what, fmt(x.rps), fmt(x.p50), fmt(x.p99), x.errors]),
    ),
  ].join('\n');
}

export function scalingTables(s: ScalingResults): string {
  const base = s.markets[0]?.trade.p50;
  const firstAgents = s.agents[0];
  return [
    `### Scaling (${s.seconds} s per row)`,
    '',
    `Trades at ${s.connections} connections (100 agents, 200 markets of the newest slice, memory database), by the number of markets seeded on top of the catalogue:`,
    '',
    table(
      ['markets', 'req/s', 'p50 ms', 'p99 ms', 'errors', 'p50 / first row'],
      s.markets.map((m) => [
        fmt(m.markets),
        fmt(m.trade.rps),
        fmt(m.trade.p50),
        fmt(m.trade.p99),
        m.trade.errors,
        base ? fmt(m.trade.p50 / base) : '–',
      ]),
    ),
    '',
    `Reads paced at ${s.readRate} req/s on the largest catalogue, p50 / p99 ms by the number of seeded agents:`,
    '',
    table(
      ['read', ...s.agents.map((a) => `${fmt(a.agents)} agents`), 'errors'],
      (firstAgents?.reads ?? []).map((r, i) => [
        r.what,
        ...s.agents.map((a) => `${fmt(a.reads[i]?.p50)} / ${fmt(a.reads[i]?.p99)}`),
        s.agents.reduce((n, a) => n + (a.reads[i]?.errors ?? 0), 0),
      ]),
    ),
    ...(s.history?.length ? ['', historyTable(s)] : []),
  ].join('\n');
}

/** The history axis: per-agent reads paced at `readRate`, p50 / p99 ms by the number of recorded trades. */
function historyTable(s: ScalingResults): string {
  const h = s.history ?? [];
  const first = h[0];
  return [
    `Per-agent reads paced at ${s.readRate} req/s on ${s.historyMarkets ? `a stack of their own (${fmt(s.historyMarkets)} markets, ${fmt(s.historyAgents)} agents)` : 'the largest catalogue and population'}, p50 / p99 ms by the number of recorded trades (each with its ledger entries, fill event and position; seeding and re-marking took ${h.map((x) => `${fmt(x.seededSeconds)} s`).join(', ')}):`,
    '',
    table(
      ['read', ...h.map((x) => `${fmt(x.trades)} trades`), 'errors'],
      (first?.reads ?? []).map((r, i) => [
        r.what,
        ...h.map((x) => `${fmt(x.reads[i]?.p50)} / ${fmt(x.reads[i]?.p99)}`),
        h.reduce((n, x) => n + (x.reads[i]?.errors ?? 0), 0),
      ]),
    ),
    ...h.filter((x) => x.failed).map((x) => `\nSeeding ${fmt(x.trades)} trades failed: ${x.failed}`),
  ].join('\n');
}

export function coldStartTable(c: ColdStartResults): string {
  return [
    '### Cold start (embedded default, one agent, one trade at a time)',
    '',
    table(
      ['trade', 'ms'],
      [
        ['first after the start banner (agent registered, markets listed)', fmt(c.firstAfterStartMs)],
        [`first after ${c.idleSeconds} s idle`, fmt(c.firstAfterIdleMs)],
        ['warm (median of the next 10)', fmt(c.warmMs)],
      ],
    ),
  ].join('\n');
}

export function commandCountTable(c: CommandCount): string {
  return [
    '### Database commands per sim buy (driver command monitoring)',
    '',
    table(
      ['buy', 'API', 'worker', 'total'],
      [
        ['one buy, alone', c.api, c.worker, c.api + c.worker],
        [
          `per buy, ${c.batch} buys by different agents at once`,
          fmt(c.apiPerBuyInBatch),
          fmt(c.workerPerBuyInBatch),
          fmt(c.apiPerBuyInBatch + c.workerPerBuyInBatch),
        ],
      ],
    ),
    '',
    `API: ${c.apiCommands.join(', ') || 'none'}.`,
    '',
    `Worker: ${c.workerCommands.join(', ') || 'none'}.`,
    '',
    ...(c.apiBatchCommands && c.workerBatchCommands
      ? [
          `${c.batch} buys at once, API: ${c.apiBatchCommands.join(', ') || 'none'}.`,
          '',
          `${c.batch} buys at once, worker: ${c.workerBatchCommands.join(', ') || 'none'}.`,
          '',
        ]
      : []),
    `Background while idle (not counted above): ${c.backgroundPerSecond} commands/s.`,
  ].join('\n');
}

const latencyCells = (l: Latency | undefined) =>
  l ? [l.count, fmt(l.p50), fmt(l.p99), fmt(l.max)] : ['–', '–', '–', '–'];

export function reactorTable(r: ReactorResults): string {
  const s = r.service;
  return [
    `### Reactor (${fmt(r.agents)} agents × ${r.walletsPerAgent} of ${fmt(r.wallets)} whale wallets, ${r.fillRate} fills/s for ${r.seconds} s on ${r.markets} markets, ${fmt(r.blockMs / 1000)} s blocks, ${r.database === 'memory' ? 'memory database' : 'embedded default (H2 file)'})`,
    '',
    `Fills made through the Polymarket emulator's admin fills endpoint, mined on its chain (${fmt(r.fillsPerBlock)} fills per block), followed by the service's fill feed; every agent holds \`GET /api/sdk/reactor/stream\` open. ` +
      `${fmt(r.fills)} fills (${r.fillErrors} refused; made at ${fmt(r.fillRateMade)}/s) called for ${fmt(r.signalsExpected)} signals: ${fmt(r.signalsFound)} written, ${fmt(r.sseEvents)} SSE events received${r.misdelivered ? ` (${fmt(r.misdelivered)} by an agent not watching the wallet)` : ''}. ` +
      `Watchlists set through \`PATCH /api/sdk/reactor/config\` (${fmt(r.setupSeconds.config)} s for all; registering took ${fmt(r.setupSeconds.register)} s, opening the streams ${fmt(r.setupSeconds.streams)} s).`,
    '',
    table(
      ['from the fill mined (its block time) to', 'samples', 'p50 ms', 'p99 ms', 'max ms'],
      [
        ...(r.toFill
          ? [['its whale leg stored by the fill feed (`venue_fills.recordedAt`)', ...latencyCells(r.toFill)]]
          : []),
        [
          'each signal computed (`reactor_signals.createdAt`, set before it is written)',
          ...latencyCells(r.toSignal),
        ],
        ...(r.toPublished
          ? [
              [
                'each signal published (`publishedAt`: written, so in pending, and its event on the stream)',
                ...latencyCells(r.toPublished),
              ],
            ]
          : []),
        ["the `reactor_event` received on the agent's stream", ...latencyCells(r.toSse)],
      ],
    ),
    '',
    table(
      ['service process (API + workers + jobs)', 'RSS MiB', 'CPU % of a core'],
      [
        ['idle, no stream', fmt(s.idle.rssMiB), fmt(s.idle.cpuPercent)],
        [
          `idle, ${fmt(r.streams.open)} streams open`,
          fmt(s.idleWithStreams.rssMiB),
          fmt(s.idleWithStreams.cpuPercent),
        ],
        [
          `${r.fillRate} fills/s, ${fmt(r.streams.open)} streams (peak RSS ${fmt(s.load.rssPeakMiB)})`,
          fmt(s.load.rssMiB),
          fmt(s.load.cpuPercent),
        ],
      ],
    ),
    '',
    `CPU over the ${fmt(r.loadSeconds)} s of fills and last events (% of one core): ` +
      Object.entries(r.stackCpuPercent)
        .map(([kind, pc]) => `${kind} ${fmt(pc)}`)
        .join(', ') +
      `; the bench's own process (the emulator and the SSE clients) ${fmt(r.benchProcess.cpuPercent)}, its event loop late by ${fmt(r.benchProcess.loopDelayP99Ms)} ms at p99.`,
    ...(r.streams.failed ? ['', `${r.streams.failed} streams failed: ${r.streams.firstFailure ?? ''}`] : []),
  ].join('\n');
}

interface Goal {
  goal: string;
  /** The issue that set it (bench/goals.ts). */
  issue: number;
  measured: string;
  met: boolean | null;
}

const ms = (v: number) => `${fmt(v)} ms`;

/** The goals (bench/goals.ts), each against this run (null: not measured). */
export function goals(b: BenchResults): Goal[] {
  const out: Goal[] = [];
  const check = (
    issue: number,
    goal: string,
    value: number | undefined,
    ok: (v: number) => boolean,
    show: (v: number) => string = fmt,
  ) =>
    out.push({
      goal,
      issue,
      measured: value === undefined || Number.isNaN(value) ? 'not measured' : show(value),
      met: value === undefined || Number.isNaN(value) ? null : ok(value),
    });
  const t = b.trades;
  const share = TRADE_SHARE_OF_NO_OP;
  for (const n of share.connections) {
    const c = t?.closed.find((x) => x.connections === n);
    check(
      share.issue,
      `sim trades ≥ ${share.share * 100} % of the no-op round trip, ${n} connections`,
      c && c.trade.rps / c.noOp.rps,
      (v) => v >= share.share,
      pct,
    );
  }
  const paced = t?.curve.find((c) => c.rate === TRADE_P99.rate)?.trade;
  check(
    TRADE_P99.issue,
    `sim trade p99 < ${TRADE_P99.ms} ms paced at ${TRADE_P99.rate}/s`,
    paced?.p99,
    (v) => v < TRADE_P99.ms,
    ms,
  );
  const c = b.commands;
  check(
    COMMANDS_PER_BUY.issue,
    `database commands per sim buy, API ≤ ${COMMANDS_PER_BUY.api}`,
    c ? Math.min(c.api, c.apiPerBuyInBatch) : undefined,
    (v) => v <= COMMANDS_PER_BUY.api,
  );
  check(
    COMMANDS_PER_BUY.issue,
    `database commands per sim buy, worker ≤ ${COMMANDS_PER_BUY.worker}`,
    c ? Math.min(c.worker, c.workerPerBuyInBatch) : undefined,
    (v) => v <= COMMANDS_PER_BUY.worker,
  );
  const r = b.reads;
  for (const g of READ_SHARE_OF_BARE_HTTP) {
    const row = r?.closed.find((x) => x.key === g.key);
    check(
      g.issue,
      `${g.label} ≥ ${g.share * 100} % of bare HTTP at ${r?.connections ?? 100} connections`,
      row && r ? row.rps / r.bareHttp.rps : undefined,
      (v) => v >= g.share,
      pct,
    );
  }
  for (const g of READ_P99.reads) {
    const row = r?.paced.find((x) => x.key === g.key);
    check(
      g.issue,
      `${g.label} p99 < ${READ_P99.ms} ms paced at ${r?.rate ?? READ_P99.rate}/s`,
      row?.p99,
      (v) => v < READ_P99.ms,
      ms,
    );
  }
  const s = b.scaling;
  const [small, large] = [s?.markets[0], s?.markets.at(-1)];
  check(
    SCALING.issue,
    `trade p50 at ${fmt(large?.markets ?? 100_000)} markets within ${SCALING.p50Within * 100} % of ${fmt(small?.markets ?? 1000)}`,
    small && large && large !== small ? large.trade.p50 / small.trade.p50 : undefined,
    (v) => v <= 1 + SCALING.p50Within,
    (v) => `× ${fmt(v)} (${fmt(small?.trade.p50)} → ${fmt(large?.trade.p50)} ms)`,
  );
  const [few, many] = [s?.agents[0], s?.agents.at(-1)];
  for (const [i, read] of (few?.reads ?? [undefined]).entries()) {
    const after = many?.reads[i];
    check(
      SCALING.issue,
      `${read?.what ?? 'read'} p50 at ${fmt(many?.agents ?? 10_000)} agents within ${SCALING.p50Within * 100} % (or ${SCALING.p50SlackMs} ms) of ${fmt(few?.agents ?? 1000)}`,
      read && after && many !== few ? after.p50 - read.p50 : undefined,
      (v) => v <= Math.max(SCALING.p50SlackMs, SCALING.p50Within * read!.p50),
      () => `${fmt(read?.p50)} → ${fmt(after?.p50)} ms`,
    );
  }
  // Every measured history size against the 0-trade row; a size whose seeding failed is not measured.
  const measured = (s?.history ?? []).filter((h) => !h.failed);
  const none = measured[0];
  const sizes = measured.length > 1 ? measured.slice(1) : [undefined];
  const rate = s?.readRate ?? HISTORY.rate;
  for (const most of sizes) {
    const trades = fmt(most?.trades ?? 1_000_000);
    for (const [i, read] of (none?.reads ?? [undefined]).entries()) {
      const after = most?.reads[i];
      check(
        HISTORY.issue,
        `${read?.what ?? 'per-agent read'} p50 at ${trades} trades within ${HISTORY.p50Within * 100} % (or ${HISTORY.p50SlackMs} ms) of ${fmt(none?.trades ?? 0)}`,
        read && after ? after.p50 - read.p50 : undefined,
        (v) => v <= Math.max(HISTORY.p50SlackMs, HISTORY.p50Within * read!.p50),
        () => `${fmt(read?.p50)} → ${fmt(after?.p50)} ms`,
      );
      check(
        HISTORY.issue,
        `${read?.what ?? 'per-agent read'} p99 < ${HISTORY.p99Ms} ms paced at ${rate}/s with ${trades} trades`,
        after?.p99,
        (v) => v < HISTORY.p99Ms,
        ms,
      );
    }
  }
  for (const h of s?.history ?? [])
    if (h.failed)
      check(HISTORY.issue, `per-agent reads with ${fmt(h.trades)} trades`, undefined, () => false);
  const rx = b.reactor;
  const rxLoad = `${fmt(rx?.agents ?? REACTOR_P99.agents)} agents × ${rx?.walletsPerAgent ?? REACTOR_P99.walletsPerAgent} wallets, ${rx?.fillRate ?? REACTOR_P99.fillRate} fills/s`;
  check(
    REACTOR_P99.issue,
    `fill mined → signal in pending (published) p99 < ${fmt(REACTOR_P99.ms)} ms, ${rxLoad}`,
    rx && (rx.toPublished ?? rx.toSignal).p99,
    (v) => v < REACTOR_P99.ms,
    ms,
  );
  check(
    REACTOR_P99.issue,
    `fill mined → SSE event p99 < ${fmt(REACTOR_P99.ms)} ms, ${rxLoad}`,
    rx?.toSse.p99,
    (v) => v < REACTOR_P99.ms,
    ms,
  );
  const cs = b.coldStart;
  check(
    COLD_START.issue,
    `first trade after ${cs?.idleSeconds ?? 600} s idle < ${COLD_START.ms} ms`,
    cs?.firstAfterIdleMs,
    (v) => v < COLD_START.ms,
    ms,
  );
  return out;
}

export function goalsTable(b: BenchResults): string {
  return table(
    ['goal', 'issue', 'measured', 'met'],
    goals(b).map((g) => [g.goal, g.issue, g.measured, g.met === null ? '–' : g.met ? 'yes' : '**no**']),
  );
}

/** Every table of the run, as printed and as written into docs/benchmarks.md. */
export function fullReport(b: BenchResults, header: string, chartPath?: string): string {
  return [
    header,
    ...(chartPath ? ['', `![npm run bench: latency vs offered load, throughput ratios](${chartPath})`] : []),
    '',
    goalsTable(b),
    ...b.failures.map((f) => `\n**${f.part} failed**: ${f.error}`),
    ...(b.commands ? ['', commandCountTable(b.commands)] : []),
    ...(b.trades ? ['', tradeTables(b.trades)] : []),
    ...(b.reads ? ['', readTables(b.reads)] : []),
    ...(b.scaling ? ['', scalingTables(b.scaling)] : []),
    ...(b.coldStart ? ['', coldStartTable(b.coldStart)] : []),
    ...(b.reactor ? ['', reactorTable(b.reactor)] : []),
  ].join('\n');
}

/** Replaces the generated section of `docPath` (appended at the end the first time). */
export function writeSection(docPath: string, body: string): void {
  const doc = existsSync(docPath) ? readFileSync(docPath, 'utf8') : '';
  const section = `${SECTION_START}\n${body.trim()}\n${SECTION_END}`;
  const start = doc.indexOf(SECTION_START);
  const end = doc.indexOf(SECTION_END);
  const next =
    start >= 0 && end > start
      ? doc.slice(0, start) + section + doc.slice(end + SECTION_END.length)
      : `${doc.trimEnd()}\n\n${section}\n`;
  writeFileSync(docPath, next);
}
