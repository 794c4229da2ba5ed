import { randomUUID } from 'node:crypto';
import type { AgentRecord } from '../agents/agent.model.js';
import { AppError, invalidField } from '../../infra/errors.js';
import { toMicro } from '../money.js';
import { SIM_MAX_TRADE } from '../venues/sim/lmsr.js';
import type { Deps } from '../../composition/deps.js';
import { rollForwardAgent } from '../ledger/ledger.js';
import type { Admission } from '../limits/counters.js';
import {
  admitTrade,
  checkStanding,
  loadGuard,
  releaseTrade,
  settleAdmission,
  type GuardedTrade,
} from '../limits/trade-guard.js';
import { rollForwardMarket } from '../markets/market-log.js';
import type { MarketRecord } from '../markets/market.model.js';
import type { Models } from '../models.js';
import { positionId } from '../positions/position.model.js';
import type { Refusal } from '../refusal.js';
import { tradeContext } from './context.js';
import { claimIdempotencyKey, duplicateInFlight, rememberAnswer } from './idempotency.js';
import { decideBuyFill, decideBuyReserve, decideSellFill, decideSellReserve } from './sim-decisions.js';
import { FINAL_TRADE_STATUSES } from './trade.model.js';
import {
  filledResult,
  NO_MARKET,
  refusedResult,
  submittedResult,
  type Holdings,
  type TradeShape,
} from './trade-result.js';
import { LEGACY_SIM_ALIASES, type TradeRequest, type TradeResult } from './trade.schemas.js';

/** The fields the account safeguards look at. */
const guardedTrade = (shape: TradeShape, venue: 'sim' | 'polymarket' | 'kalshi'): GuardedTrade => ({
  venue,
  marketId: shape.marketId,
  side: shape.side,
  action: shape.action,
  amountMicro: shape.amountMicro,
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const CONDITION_ID = /^0x[0-9a-f]{64}$/i;
const TICKER = /^[A-Z0-9]+(-[A-Z0-9.]+)+$/;

async function marketNotFound(models: Models, id: string): Promise<Refusal> {
  let hint = 'Markets are addressed by the service market_id (a UUID) from GET /api/sdk/markets.';
  if (CONDITION_ID.test(id) || TICKER.test(id)) {
    const imported = await models.Market.findOne(
      CONDITION_ID.test(id) ? { polymarketId: id } : { kalshiTicker: id },
      { _id: 1 },
    ).lean();
    hint = imported
      ? `That is an external ${CONDITION_ID.test(id) ? 'condition id' : 'ticker'}; this market's service market_id is ${imported._id}.`
      : `That looks like an external ${CONDITION_ID.test(id) ? 'Polymarket condition id' : 'Kalshi ticker'}, not a service market_id (UUID). Import the market first (POST /api/sdk/markets/import) and trade its returned market_id.`;
  }
  return {
    error: `Market not found: ${id}`,
    errorCode: 'market_not_found',
    retryable: false,
    hint,
    category: 'market',
  };
}

function venueWarnings(req: TradeRequest): { venue: 'sim' | 'polymarket' | 'kalshi'; warnings: string[] } {
  const warnings: string[] = [];
  let venue = req.venue;
  if ((LEGACY_SIM_ALIASES as readonly string[]).includes(venue)) {
    warnings.push(`venue "${venue}" is deprecated; use "sim" (same venue).`);
    venue = 'sim';
  }
  if (venue === 'sim' && (req.order_type === 'GTC' || req.order_type === 'GTD')) {
    warnings.push(
      `order_type ${req.order_type} has no resting effect on sim: the book fills at once or refuses.`,
    );
  }
  return { venue: venue as 'sim' | 'polymarket' | 'kalshi', warnings };
}

/** A dry run: the same decisions as a live trade, on the current state, with no side effect. */
async function dryRun(
  models: Models,
  agent: AgentRecord,
  market: MarketRecord,
  shape: TradeShape,
  limit: number | null,
): Promise<TradeResult> {
  await Promise.all([rollForwardMarket(models, market._id), rollForwardAgent(models, agent._id)]);
  const [fresh, freshAgent, position] = await Promise.all([
    models.Market.findById(market._id).lean(),
    models.Agent.findById(agent._id).lean(),
    models.Position.findById(positionId(agent._id, market._id, 'sim')).lean(),
  ]);
  const m = fresh ?? market;
  const a = freshAgent ?? agent;
  const holdings = {
    balanceMicro: a.balanceMicro,
    sharesYesMicro: position?.sharesYesMicro ?? 0,
    sharesNoMicro: position?.sharesNoMicro ?? 0,
  };
  const sideKey = shape.side === 'yes' ? 'sharesYesMicro' : 'sharesNoMicro';
  if (shape.action === 'buy') {
    const reserve = decideBuyReserve(a, shape.amountMicro);
    if (!reserve.ok) return refusedResult(shape, m, reserve.refusal, holdings, true);
    const fill = decideBuyFill(m, shape.side, shape.amountMicro, limit);
    if (!fill.ok) return refusedResult(shape, m, fill.refusal, holdings, true);
    return filledResult(
      shape,
      m,
      fill.value,
      {
        ...holdings,
        balanceMicro: holdings.balanceMicro - shape.amountMicro,
        [sideKey]: holdings[sideKey] + fill.value.sharesMicro,
      },
      { dryRun: true },
    );
  }
  const reserve = decideSellReserve(a, position, shape.side, shape.sharesMicro, m.status === 'resolved');
  if (!reserve.ok) return refusedResult(shape, m, reserve.refusal, holdings, true);
  const fill = decideSellFill(m, shape.side, shape.sharesMicro, limit);
  if (!fill.ok) return refusedResult(shape, m, fill.refusal, holdings, true);
  return filledResult(
    shape,
    m,
    fill.value,
    {
      ...holdings,
      balanceMicro: holdings.balanceMicro + fill.value.amountMicro,
      [sideKey]: holdings[sideKey] - shape.sharesMicro,
    },
    { dryRun: true },
  );
}

/**
 * A trade on a real venue: unclaimed agents are refused (403 with claim_url); the account safeguards
 * answer next, so a refused trade says why; then the venue, which this server does not trade on yet.
 * Nothing is placed, so what the admission counted is given back at once.
 */
async function realVenueTrade(
  deps: Deps,
  agent: AgentRecord,
  req: TradeRequest,
  shape: TradeShape,
  venue: 'polymarket' | 'kalshi',
  holdings: Holdings,
): Promise<TradeResult> {
  if (!agent.claimedBy) {
    throw new AppError(
      403,
      'agent_not_claimed',
      'Agent must be claimed before trading',
      `Ask your human to claim this agent at claim_url, or trade on venue "sim" meanwhile.`,
      {
        body: { claim_url: tradeContext(deps).claimUrlFor(agent.claimCode) },
      },
    );
  }
  if (!req.dry_run) {
    const guard = await loadGuard(deps, agent);
    const guarded = guardedTrade(shape, venue);
    const standing = checkStanding(guard, guarded);
    if (standing) return refusedResult(shape, NO_MARKET, standing, holdings, false);
    const admission = await admitTrade(deps, guard, agent._id, guarded);
    if (admission) await releaseTrade(deps, admission, { agentId: agent._id, ...guarded });
  }
  return refusedResult(
    shape,
    NO_MARKET,
    {
      error: `Real trading on ${venue} is not available on this server yet.`,
      errorCode: 'venue_unavailable',
      retryable: false,
      hint: 'Trade on venue "sim".',
      category: 'venue',
    },
    holdings,
    req.dry_run,
  );
}

/**
 * `POST /api/sdk/trade`: validates against the market, then either quotes (dry run) or persists the
 * trade as pending, hands it to the `trades` queue and waits for the worker's answer until the
 * deadline. Business refusals come back as `success: false` (HTTP 200).
 */
export async function submitTrade(deps: Deps, agent: AgentRecord, req: TradeRequest): Promise<TradeResult> {
  const { models } = deps;
  const { venue, warnings } = venueWarnings(req);
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
  // A rule of the sim venue, not an account limit: dry runs are held to it too.
  if (venue === 'sim' && shape.amountMicro > toMicro(SIM_MAX_TRADE))
    throw invalidField(
      'amount',
      `at most ${SIM_MAX_TRADE} $SIM per buy on sim`,
      req.amount,
      `Split the buy into trades of at most ${SIM_MAX_TRADE} $SIM.`,
    );

  if (venue !== 'sim') return realVenueTrade(deps, agent, req, shape, venue, holdings);

  const market = UUID.test(req.market_id) ? await models.Market.findById(req.market_id).lean() : null;
  if (!market)
    return refusedResult(
      shape,
      NO_MARKET,
      await marketNotFound(models, req.market_id),
      holdings,
      req.dry_run,
    );
  if (!market.simTradeable || market.analyticsOnly) {
    const refusal: Refusal = {
      error: 'Market is not tradeable on sim (tracking market: real trading only).',
      errorCode: 'market_not_tradeable',
      retryable: false,
      hint: 'Pick a market with sim_tradeable: true.',
      category: 'market',
    };
    return refusedResult(shape, market, refusal, holdings, req.dry_run);
  }
  const limit = req.price ?? null;
  if (req.dry_run) return dryRun(models, agent, market, shape, limit);

  const guard = await loadGuard(deps, agent);
  const guarded = guardedTrade(shape, venue);
  const tradeId = randomUUID();
  const idem = req.idempotency_key
    ? await claimIdempotencyKey<TradeResult>(
        deps.redis,
        deps.env.QUEUE_PREFIX,
        agent._id,
        req.idempotency_key,
        tradeId,
      )
    : null;
  if (idem?.state === 'replay') return idem.answer;
  if (idem?.state === 'in-flight') {
    const first = await models.Trade.findById(idem.tradeId, { status: 1, result: 1 }).lean();
    if (first && FINAL_TRADE_STATUSES.includes(first.status) && first.result) {
      await rememberAnswer(deps.redis, deps.env.QUEUE_PREFIX, agent._id, req.idempotency_key!, first.result);
      return first.result as TradeResult;
    }
    throw duplicateInFlight();
  }
  // Refused before anything was recorded: the key is released, so it may be used again.
  let admission: Admission | null;
  try {
    const standing = checkStanding(guard, guarded);
    if (standing) {
      await idem?.abandon();
      return refusedResult(shape, market, standing, holdings, false);
    }
    admission = await admitTrade(deps, guard, agent._id, guarded);
  } catch (err) {
    await idem?.abandon();
    throw err;
  }

  try {
    await models.Trade.create({
      _id: tradeId,
      agentId: agent._id,
      marketId: market._id,
      venue,
      side: req.side,
      action: req.action,
      amountMicro: shape.amountMicro,
      sharesMicro: shape.sharesMicro,
      orderType: req.order_type ?? (req.action === 'buy' ? 'FAK' : 'GTC'),
      limitPrice: limit,
      reasoning: req.reasoning ?? null,
      source: req.source ?? null,
      skillSlug: req.skill_slug ?? null,
      signalData: req.signal_data ?? null,
      idempotencyKey: req.idempotency_key ?? null,
      warnings,
      status: 'pending',
      ownerKey: guard.owner.key,
      admission,
    });
  } catch (err) {
    // Not recorded: give the count back here (best effort: a failure errs on the safe side).
    if (admission)
      await releaseTrade(deps, admission, { agentId: agent._id, ...guarded }).catch((e: unknown) =>
        deps.log.warn({ err: e, tradeId }, 'could not give back a daily-limit count'),
      );
    await idem?.abandon();
    throw err;
  }
  // From here the trade is recorded. Unless it is stopped before any worker took it, the caller gets
  // its id ("submitted"), never a retryable error that would have it placed twice: the worker, or
  // the reconcile job, finishes it.
  const submitted = async () => {
    await idem
      ?.keepPointing()
      .catch((err: unknown) => deps.log.warn({ err, tradeId }, 'idempotency key not kept'));
    return submittedResult({ ...shape, id: tradeId }, market, holdings);
  };
  let outcome;
  try {
    outcome = await deps.queues.enqueueAndWait<TradeResult>(
      'execute-trade',
      { tradeId },
      deps.env.TRADE_WAIT_MS,
    );
  } catch (err) {
    // The caller is told "failed": the trade must never run later behind their back. If a worker
    // claimed it first (the job was added but the reply was lost), it runs.
    const stopped = await models.Trade.updateOne(
      { _id: tradeId, status: 'pending' },
      {
        $set: {
          status: 'failed',
          failureCategory: 'internal',
          failureReason: 'The trade queue was unavailable; nothing was executed.',
          finishedAt: deps.clock(),
        },
      },
    ).catch(() => ({ modifiedCount: 0 }));
    if (stopped.modifiedCount === 0) return submitted();
    await settleAdmission(deps, tradeId).catch((e: unknown) =>
      deps.log.warn({ err: e, tradeId }, 'daily-limit count not given back yet (the reconcile job will)'),
    );
    await idem?.abandon().catch(() => undefined);
    throw err;
  }
  try {
    if (outcome.state === 'completed') {
      await idem?.complete(outcome.result);
      return outcome.result;
    }
    const stored = await models.Trade.findById(tradeId, { status: 1, result: 1 }).lean();
    if (stored && FINAL_TRADE_STATUSES.includes(stored.status) && stored.result) {
      await idem?.complete(stored.result as TradeResult);
      return stored.result as TradeResult;
    }
  } catch (err) {
    deps.log.warn({ err, tradeId }, 'trade outcome not readable; answering submitted');
  }
  return submitted();
}
