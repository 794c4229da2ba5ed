import { z } from 'zod';
import {
  PortfolioQuerySchema,
  PortfolioSchema,
  PositionListSchema,
  PositionsQuerySchema,
  TradesQuerySchema,
} from '../../shared/domains/trading/reads.schemas.js';
import {
  BatchTradeRequestSchema,
  BatchTradeResultSchema,
  MAX_BATCH_LEGS,
} from '../../shared/domains/trading/submit-batch.js';
import {
  PreparedTradeSchema,
  TradeRequestSchema,
  TradeResultSchema,
} from '../../shared/domains/trading/trade.schemas.js';
import { endpoint } from './endpoint.js';

const Row = z.record(z.string(), z.unknown());

const CancelResultSchema = z
  .object({
    success: z.boolean(),
    canceled: z.array(z.string()),
    not_canceled: z.record(z.string(), z.string()),
    count: z.number(),
    error: z.string().nullable(),
  })
  .meta({ id: 'CancelOrdersResult' });

const CANCEL_NOTE =
  'Cancels on the venue (Polymarket CLOB) under the owner’s credentials, then syncs each trade: what already matched stays booked, the rest is closed. `canceled` and `not_canceled` name each order by its `order_id` as the open orders list it. Kalshi (DFlow) orders cannot be cancelled: they are listed in `not_canceled` and fill or expire by themselves.';

export const tradingEndpoints = {
  trade: endpoint({
    method: 'post',
    path: '/api/sdk/trade',
    auth: 'agent',
    // A released agent's trade is refused as a business outcome (client-contract §1.5).
    releasedAgent: 'answers-itself',
    tag: 'Trading',
    summary: 'Buy (sized by amount) or sell (by shares); dry_run quotes without trading',
    description:
      'Business refusals (insufficient balance, market resolved, …) are HTTP 200 with `success: false`, `error`, `error_code`, `retryable`. ' +
      'On `sim` the book fills at once; `price` is a limit on the average fill (refused, not partially filled, when not met). ' +
      'With `idempotency_key` the first completed answer is replayed for 24 h; a duplicate in flight gets a retryable 503; ' +
      'the key is bound to its trade (venue, market, side, action, amount, shares, price, order type): the same key with another trade is a 422 `idempotency_key_reused`. ' +
      'If the worker has not finished within the deadline (25 s) the answer is `fill_status: "submitted"` with the `trade_id`. ' +
      '`fill_status`: `filled` (final), `submitted` (resting or queued: cost 0 until it matches), `failed` (refused, `success: false`), or `unconfirmed`: on `polymarket` a match is booked at once but settles on chain afterwards (the CLOB trade goes MATCHED → MINED → CONFIRMED, typically 5–15 s); the trade answers `unconfirmed` until every trade of its order is CONFIRMED, then `filled` (read it with `GET /api/sdk/trades` or by resending the same `idempotency_key`, which is not cached while unconfirmed). If the chain FAILS the match, the booking and the position are rolled back once, the trade becomes `failed` with `error_code: "settlement_failed"` and a `failure_reason` (`GET /api/sdk/trades?include_failed=true`), and a `trade.failed` webhook event is sent. ' +
      'The deprecated `execute: true` trades nothing: it answers the parameters of a Polymarket YES buy (`order_params`, `intent_id`) to place yourself.',
    body: TradeRequestSchema,
    response: z.union([TradeResultSchema, PreparedTradeSchema]),
    // 429: the trade guard's cooldowns (Retry-After).
    errors: [403, 429, 503],
  }),
  batchTrades: endpoint({
    method: 'post',
    path: '/api/sdk/trades/batch',
    auth: 'agent',
    releasedAgent: 'answers-itself',
    tag: 'Trading',
    summary: `Up to ${MAX_BATCH_LEGS} buys in one request, each a normal trade; atomic: all or none`,
    description:
      'Each leg is priced first by a dry run (`dry_run_price`, `slippage` against the price before); a leg projected beyond `max_slippage` is `aborted`, and a placed leg is limited to it. ' +
      'Each leg then runs as `POST /api/sdk/trade` would (safeguards, ledger, exactly once); refusals are HTTP 200 with the leg’s `error`. ' +
      '`atomic: true` (sim only, distinct markets) decides all or none before any leg runs — nothing is ever reversed: every leg’s projection, the balance for the total and every leg’s safeguards (admissions held together, so the batch fits the daily cap) must pass, or nothing is applied (`applied: "none"`). ' +
      'A leg can still fail in execution if the market or balance changed in between (a race); the answer then says which legs filled (`applied: "partial"` and a warning).',
    body: BatchTradeRequestSchema,
    response: BatchTradeResultSchema,
    // 429: the trade guard's cooldowns (Retry-After).
    errors: [403, 429, 503],
  }),
  listTrades: endpoint({
    method: 'get',
    path: '/api/sdk/trades',
    auth: 'agent',
    tag: 'Trading',
    summary: 'Trade history, newest first (failed rows with include_failed=true)',
    description:
      'A row of a venue match that settles on chain (Polymarket) carries `settlement`: `pending` while the chain has not confirmed it (the trade answered `fill_status: "unconfirmed"`), `confirmed`, or `failed` (the row is then `status: "failed"` with `error_code: "settlement_failed"` and `failure_reason`, shown with include_failed=true; a filled row whose order failed only in part keeps the confirmed part and says why in `failure_reason`).',
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
    response: PositionListSchema,
  }),
  openOrders: endpoint({
    method: 'get',
    path: '/api/sdk/orders/open',
    auth: 'agent',
    tag: 'Trading',
    summary: 'The agent’s orders still working on a venue (resting GTC/GTD, delayed)',
    description:
      'Each row carries the `trade_id` that `POST /api/sdk/trade` answered for it, its `order_id` as the trade answered it (the `trade_id` for an order the service signs with a managed or agent wallet; the venue’s order id for an external wallet’s order, which the client cancels on the venue itself), the venue’s own id as `venue_order_id`, its `source` and `skill_slug`.',
    response: z.object({ orders: z.array(Row), count: z.number() }).meta({ id: 'OpenOrders' }),
  }),
  cancelOrder: endpoint({
    method: 'delete',
    path: '/api/sdk/orders/{order_id}',
    auth: 'agent',
    tag: 'Trading',
    summary: 'Cancel one open order',
    description: `\`order_id\`: the \`order_id\` or \`trade_id\` the trade answered, or the venue’s order id (\`venue_order_id\`). ${CANCEL_NOTE}`,
    params: z.object({ order_id: z.string().min(1).max(200) }),
    response: CancelResultSchema,
    errors: [404],
  }),
  cancelMarketOrders: endpoint({
    method: 'delete',
    path: '/api/sdk/markets/{market_id}/orders',
    auth: 'agent',
    tag: 'Trading',
    summary: 'Cancel the open orders on one market (optionally one side)',
    description: CANCEL_NOTE,
    params: z.object({ market_id: z.string().min(1).max(200) }),
    query: z.object({ side: z.enum(['yes', 'no']).optional() }),
    response: CancelResultSchema,
  }),
  cancelAllOrders: endpoint({
    method: 'delete',
    path: '/api/sdk/orders',
    auth: 'agent',
    tag: 'Trading',
    summary: 'Cancel every open order of the agent',
    description: CANCEL_NOTE,
    response: CancelResultSchema,
  }),
  portfolio: endpoint({
    method: 'get',
    path: '/api/sdk/portfolio',
    auth: 'agent',
    freshAgent: true,
    tag: 'Trading',
    summary: 'Portfolio summary: balances, exposure, concentration, by source, per venue',
    description:
      "A real venue's bucket carries the cash in the owner's wallet there, read from the venue's chain and reused for a short while: `balance`, `balance_checked_at` (when it was read), `wallet_address`, `balance_stale` and `balance_warning`. When the chain cannot be read the last balance read is answered with its age and a warning, or `balance: null` with one (unknown, never 0); without a wallet there the balance is 0. `balance_usdc` is the asked venue's balance, else the sum over the wallets (null when none could be read).",
    query: PortfolioQuerySchema,
    response: PortfolioSchema,
  }),
};
