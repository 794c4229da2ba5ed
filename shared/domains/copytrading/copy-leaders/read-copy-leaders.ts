import { z } from 'zod';
import { AppError } from '../../../infra/errors.js';
import { LATEST_COPY_LEADERS, type CopyLeadersModel } from './copy-leaders.model.js';
import { ALL_CATEGORIES, LEADERS_KEPT } from './refresh-copy-leaders.js';

/** The category of the World Cup list (`GET /api/sdk/wc/copy-leaders`). */
export const WORLD_CUP_CATEGORY = 'sports';
/** When the daily job runs (UTC): the hour the skills are told to wait for. */
export const COPY_LEADERS_HOUR_UTC = 2;

export const CopyLeadersQuerySchema = z.object({
  category: z
    .string()
    .trim()
    .min(1, 'category cannot be empty: leave it out for every market')
    .max(80, 'category is at most 80 characters')
    .regex(/^[\p{L}\p{N} &'.-]+$/u, "category holds letters, digits, spaces and & ' . - only")
    .optional()
    .meta({
      description: `A market category (case-insensitive, e.g. \`sports\`, \`politics\`, \`crypto\`); absent: \`${ALL_CATEGORIES}\`, every market.`,
    }),
  limit: z.coerce
    .number()
    .int('limit must be a whole number')
    .min(1, 'limit must be at least 1')
    .max(LEADERS_KEPT, `limit is at most ${LEADERS_KEPT}: that many leaders are kept per category`)
    .default(LEADERS_KEPT)
    .meta({ description: `Leaders returned, 1–${LEADERS_KEPT} (default ${LEADERS_KEPT}).` }),
});
export type CopyLeadersQuery = z.output<typeof CopyLeadersQuerySchema>;

/** Seconds until the next daily run, for Retry-After. */
function secondsToNextRun(now: Date): number {
  const next = new Date(now);
  next.setUTCHours(COPY_LEADERS_HOUR_UTC, 0, 0, 0);
  if (next.getTime() <= now.getTime()) next.setUTCDate(next.getUTCDate() + 1);
  return Math.ceil((next.getTime() - now.getTime()) / 1000);
}

const notReady = (now: Date) =>
  new AppError(
    503,
    'copy_leaders_not_ready',
    'Copy leader set not yet computed: the daily refresh-copy-leaders job has not run yet',
    `Retry after the daily run at 0${COPY_LEADERS_HOUR_UTC}:00 UTC (see Retry-After); an operator can run the refresh-copy-leaders schedule now from /admin.`,
    { retryable: true, headers: { 'Retry-After': String(secondsToNextRun(now)) } },
  );

/**
 * The stored leaders of a category (`all` when none is asked), best first, as the skills read
 * them. A category no market of the window had answers an empty list; 503 until the first run.
 */
export async function readCopyLeaders(
  models: { CopyLeaders: CopyLeadersModel },
  q: CopyLeadersQuery,
  now: Date,
) {
  const run = await models.CopyLeaders.findById(LATEST_COPY_LEADERS).lean();
  if (!run) throw notReady(now);
  const category = (q.category ?? ALL_CATEGORIES).toLowerCase();
  const leaders = run.categories.find((c) => c.category === category)?.leaders ?? [];
  return {
    leaders: leaders.slice(0, q.limit).map((l) => ({
      wallet: l.wallet,
      backtest_copy_pnl_usdc: l.pnlUsd,
      slippage_cost_rate_pct: l.slippageCostRatePct,
      trade_count: l.tradeCount,
    })),
    category,
    refreshed_at: run.refreshedAt.toISOString(),
    window_start: run.windowStart.toISOString(),
    window_end: run.windowEnd.toISOString(),
    truncated: run.truncated,
  };
}
