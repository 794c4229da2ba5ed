import type { VenueTradingDeps } from './venue-trading.js';
import type { AgentRecord } from '../agents/agent.model.js';
import type { Admission } from './trade.model.js';
import { invalidField } from '../../infra/errors.js';
import { fromMicro } from '../money.js';
import { normalizeVenue } from '../venues/venue-id.js';
import type { TradeShape } from './trade-result.js';
import type { PreparedTrade, TradeRequest, TradeResult } from './trade.schemas.js';
import { prepareRealTrade } from './prepare-real-trade.js';
import { requireClaimed } from './real-venue-trade.js';

/**
 * Submit a trade: `POST /api/sdk/trade`, the API's half of a trade (execute-trade.ts is the worker's
 * half), called by its handler with the validated request. Read this first; the steps below it are
 *
 * 1. the legacy `execute: true` only prepares an order (prepare-real-trade.ts), never a trade;
 * 2. the venue is named (a legacy alias with its warning) and its rules applied: the largest buy,
 *    and a venue of real money (`capabilities.money`) takes a claimed agent only (real-venue-trade.ts);
 * 3. the venue's `submit` (TradingVenues) takes it from there: a dry run is quoted; a live trade is
 *    recorded `pending`, queued as the `execute-trade` job and waited for until the deadline
 *    (record-and-run.ts).
 *
 * Business refusals come back as `success: false` (HTTP 200).
 */
export async function submitTrade(
  deps: VenueTradingDeps,
  agent: AgentRecord,
  req: TradeRequest,
  /** A buy's admission the caller already took (an atomic batch: submit-batch.ts); else taken per trade. */
  admitted?: Admission | null,
): Promise<TradeResult | PreparedTrade> {
  // The legacy `execute: true` (prepare_real_trade) only prepares an order: never a trade, on any venue.
  if (req.execute === true) return prepareRealTrade(deps, req);
  // The schema admits only venue names, so this always finds one; the alias warning comes first.
  const normalized = normalizeVenue(req.venue)!;
  const { venue } = normalized;
  const trading = deps.trading.get(venue);
  const warnings = [...(normalized.warning ? [normalized.warning] : []), ...trading.warnings(req)];
  const shape: TradeShape = {
    id: null,
    marketId: req.market_id,
    venue,
    side: req.side,
    action: req.action,
    amountMicro: req.action === 'buy' ? Math.round(req.amount * 100) * 10_000 : 0,
    sharesMicro: req.action === 'sell' ? Math.round(req.shares * 1e5) * 10 : 0,
    warnings,
  };
  const holdings = { balanceMicro: agent.balanceMicro, sharesYesMicro: 0, sharesNoMicro: 0 };
  // A rule of the venue, not an account limit: dry runs are held to it too.
  const max = trading.capabilities.maxBuyMicro;
  if (max !== null && shape.amountMicro > max)
    throw invalidField(
      'amount',
      `at most ${fromMicro(max)} $SIM per buy on ${venue}`,
      req.amount,
      `Split the buy into trades of at most ${fromMicro(max)} $SIM.`,
    );
  if (trading.capabilities.money === 'real') requireClaimed({ deps, agent });
  return trading.submit({ deps, agent, req, shape, holdings, admitted });
}
