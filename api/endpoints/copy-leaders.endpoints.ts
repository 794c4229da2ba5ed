import { z } from 'zod';
import {
  COPY_DELAY_SECONDS,
  COPY_STAKE_USD,
  HALF_TICK,
} from '../../shared/domains/copytrading/copy-leaders/copy-backtest.js';
import {
  COPY_LEADERS_HOUR_UTC,
  CopyLeadersQuerySchema,
  WORLD_CUP_CATEGORY,
} from '../../shared/domains/copytrading/copy-leaders/read-copy-leaders.js';
import {
  COPY_LEADERS_WINDOW_DAYS,
  LEADERS_KEPT,
  MAX_FILLS_READ,
  MIN_LEADER_TRADES,
} from '../../shared/domains/copytrading/copy-leaders/refresh-copy-leaders.js';
import { endpoint } from './endpoint.js';

const Leader = z
  .object({
    wallet: z.string(),
    backtest_copy_pnl_usdc: z.number(),
    slippage_cost_rate_pct: z.number(),
    trade_count: z.number().int(),
  })
  .meta({ id: 'CopyLeader' });

const CopyLeaders = z
  .object({
    leaders: z.array(Leader),
    category: z.string(),
    refreshed_at: z.string(),
    window_start: z.string(),
    window_end: z.string(),
    truncated: z.boolean(),
  })
  .meta({ id: 'CopyLeaders' });

const HOW =
  `Wallets ranked by what copying their trades would have earned over the last ${COPY_LEADERS_WINDOW_DAYS} days of settled fills (the fill feed's record of who traded: maker and taker of every match, by wallet; reorged fills left out), on markets imported here. ` +
  `Each buy is copied with $${COPY_STAKE_USD} as a taker order ${COPY_DELAY_SECONDS} s later, at the worse of the leader's price and the market's last recorded price by then (the leader's own when nobody traded since), plus ${HALF_TICK} (half a tick); each sale sells the same fraction of the copy as the leader sold of what it bought in the window; the venue's taker fee (fee_rate_bps/10,000 × min(p, 1 − p) per share) is paid on every copy; what is still held is valued at the resolution's payout or the last recorded price. ` +
  "`backtest_copy_pnl_usdc`: the copy's profit in USD; `slippage_cost_rate_pct`: slippage paid as a percent (1.5 = 1.5 %) of the copies' value at the leader's prices; `trade_count`: the wallet's trades in the window. " +
  `Leaders have a positive copy P&L and at least ${MIN_LEADER_TRADES} trades; ${LEADERS_KEPT} are kept per category. ` +
  `Refreshed daily at 0${COPY_LEADERS_HOUR_UTC}:00 UTC by the refresh-copy-leaders schedule (at most ${MAX_FILLS_READ} fills, the newest; \`truncated\` says when more were in the window). 503 \`copy_leaders_not_ready\` until its first run.`;

export const copyLeaderEndpoints = {
  copyLeaders: endpoint({
    method: 'get',
    path: '/api/sdk/copytrading/leaders',
    auth: 'agent',
    tag: 'Trading',
    summary: 'Wallets worth copying: the best copy P&L over the last week, by category',
    description: HOW,
    query: CopyLeadersQuerySchema,
    response: CopyLeaders,
    errors: [503],
  }),
  worldCupCopyLeaders: endpoint({
    method: 'get',
    path: '/api/sdk/wc/copy-leaders',
    auth: 'agent',
    tag: 'Trading',
    summary: `The World Cup copy leaders: GET /api/sdk/copytrading/leaders?category=${WORLD_CUP_CATEGORY}`,
    description: `The \`${WORLD_CUP_CATEGORY}\` category of the copy leaders (polymarket-worldcup-copytrader reads it). ${HOW}`,
    query: CopyLeadersQuerySchema.pick({ limit: true }),
    response: CopyLeaders,
    errors: [503],
  }),
};
