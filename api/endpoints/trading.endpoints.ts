import { z } from 'zod';
import {
  PortfolioQuerySchema,
  PositionsQuerySchema,
  TradesQuerySchema,
} from '../../shared/domains/trading/reads.schemas.js';
import { TradeRequestSchema, TradeResultSchema } from '../../shared/domains/trading/trade.schemas.js';
import { endpoint } from './endpoint.js';

const Row = z.record(z.string(), z.unknown());

export const tradingEndpoints = {
  trade: endpoint({
    method: 'post',
    path: '/api/sdk/trade',
    auth: 'agent',
    tag: 'Trading',
    summary: 'Buy (sized by amount) or sell (by shares); dry_run quotes without trading',
    description:
      'Business refusals (insufficient balance, market resolved, …) are HTTP 200 with `success: false`, `error`, `error_code`, `retryable`. ' +
      'On `sim` the book fills at once; `price` is a limit on the average fill (refused, not partially filled, when not met). ' +
      'With `idempotency_key` the first completed answer is replayed for 24 h; a duplicate in flight gets a retryable 503. ' +
      'If the worker has not finished within the deadline (25 s) the answer is `fill_status: "submitted"` with the `trade_id`.',
    body: TradeRequestSchema,
    response: TradeResultSchema,
    errors: [403, 503],
  }),
  listTrades: endpoint({
    method: 'get',
    path: '/api/sdk/trades',
    auth: 'agent',
    tag: 'Trading',
    summary: 'Trade history, newest first (failed rows with include_failed=true)',
    query: TradesQuerySchema,
    response: z
      .object({
        trades: z.array(Row),
        total_count: z.number(),
        limit: z.number(),
        offset: z.number(),
        agent_id: z.string(),
      })
      .meta({ id: 'TradeList' }),
  }),
  listPositions: endpoint({
    method: 'get',
    path: '/api/sdk/positions',
    auth: 'agent',
    freshAgent: true,
    tag: 'Trading',
    summary: 'Positions per market and venue, with cost basis, value and P&L',
    query: PositionsQuerySchema,
    response: z
      .looseObject({ positions: z.array(Row), total_pnl: z.number(), total_value: z.number() })
      .meta({ id: 'PositionList' }),
  }),
  portfolio: endpoint({
    method: 'get',
    path: '/api/sdk/portfolio',
    auth: 'agent',
    freshAgent: true,
    tag: 'Trading',
    summary: 'Portfolio summary: balances, exposure, concentration, by source, per venue',
    query: PortfolioQuerySchema,
    response: z
      .looseObject({ sim_balance: z.number(), total_exposure: z.number(), combos: z.array(z.unknown()) })
      .meta({ id: 'Portfolio' }),
  }),
};
