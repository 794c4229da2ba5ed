// The goal numbers of `npm run bench`, in one place: the report's goals table (bench/report.ts) and
// the chart's goal ticks and lines (bench/chart.ts) both read them. Issue 27 restated the trade,
// read and history goals; the others are still issue 11's.

/** Sim trade throughput as a share of the no-op BullMQ round trip, closed loop (issue 27). */
export const TRADE_SHARE_OF_NO_OP = { issue: 27, share: 0.1, connections: [16, 64] } as const;

/** Sim trade p99 paced at `rate` req/s (issue 27). */
export const TRADE_P99 = { issue: 27, ms: 100, rate: 100 } as const;

/** Closed-loop read throughput as a share of the bare HTTP endpoint at 100 connections, by read key. */
export const READ_SHARE_OF_BARE_HTTP: readonly {
  key: string;
  label: string;
  share: number;
  issue: number;
}[] = [
  { key: 'list', label: 'market list', share: 0.5, issue: 27 },
  { key: 'market', label: 'single market', share: 0.5, issue: 27 },
  { key: 'leaderboard', label: 'leaderboard', share: 0.5, issue: 11 },
  { key: 'briefing', label: 'briefing', share: 0.25, issue: 27 },
];

/** Read p99 paced at `rate` req/s, by read key (context is issue 11's; the others issue 27's). */
export const READ_P99 = {
  ms: 25,
  rate: 200,
  reads: [
    { key: 'list', label: 'market list', issue: 27 },
    { key: 'market', label: 'single market', issue: 27 },
    { key: 'context', label: 'context', issue: 11 },
    { key: 'briefing', label: 'briefing', issue: 27 },
  ],
} as const;

/**
 * The history axis (issue 27): each per-agent read's p50 within `p50Within` of the 0-trade row (or
 * within `p50SlackMs`, for reads answered in a few milliseconds, where 20 % is noise) and its p99
 * under `p99Ms` paced at `rate` req/s, at every recorded size.
 */
export const HISTORY = { issue: 27, p50Within: 0.2, p50SlackMs: 2, p99Ms: 25, rate: 200 } as const;

/** The catalogue and population axes (issue 11): p50 within `p50Within` (reads: or `p50SlackMs`). */
export const SCALING = { issue: 11, p50Within: 0.2, p50SlackMs: 2 } as const;

/** Database commands per sim buy, by role (issue 11). */
export const COMMANDS_PER_BUY = { issue: 11, api: 1, worker: 6 } as const;

/** The first trade after the idle time (issue 11). */
export const COLD_START = { issue: 11, ms: 100 } as const;

/** Reactor (issue 37): fill mined on the chain → signal in pending and → SSE event, p99. */
export const REACTOR_P99 = {
  issue: 37,
  ms: 1_000,
  agents: 1_000,
  walletsPerAgent: 10,
  fillRate: 100,
} as const;
