import { createHash } from 'node:crypto';
import { AppError, invalidField, RequestValidationError } from '../../infra/errors.js';
import { chunks } from '../../util/chunks.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { fromMicro } from '../money.js';
import { submitTrade } from '../trading/submit-trade.js';
import { TradeRequestSchema, type TradeResult } from '../trading/trade.schemas.js';
import type { VenueTradingDeps } from '../trading/venue-trading.js';
import { agentWalletCash } from '../trading/wallet-cash.js';
import { isPoolVenue, normalizeVenue, type VenueId } from '../venues/venue-id.js';
import { planCopyTrades, type AgentHolding, type PlannedTrade } from './copy-plan.js';
import { copyTargets } from './copy-targets.js';
import {
  MAX_PLAN_TRADES,
  type CopytradingRequest,
  type CopytradingResult,
  type CopytradingTrade,
} from './copytrading.schemas.js';
import { autoTopN, whaleConsensus } from './whale-consensus.js';
import { COPYTRADING_SOURCE, whaleExits } from './whale-exits.js';
import { whaleHoldings } from './whale-positions.js';

/** Dry runs priced at once. */
const PARALLEL_QUOTES = 10;

const round2 = (n: number) => Math.round(n * 100) / 100;
const round5 = (n: number) => Math.round(n * 1e5) / 1e5;
const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/** What the agent can spend on the venue: the paper balance on sim, the owner's wallet cash elsewhere. */
async function balanceOn(deps: VenueTradingDeps, agent: AgentRecord, venue: VenueId): Promise<number> {
  if (isPoolVenue(venue)) return fromMicro(agent.balanceMicro);
  return (await agentWalletCash(deps, agent, [venue])).get(venue)?.balance ?? 0;
}

/** The agent's open positions on the venue, as shares free to sell, with their markets. */
async function openHoldings(deps: VenueTradingDeps, agentId: string, venue: VenueId) {
  const positions = await deps.models.Position.find({ agentId, venue, status: 'open' }).lean();
  const markets = await deps.models.Market.find(
    { _id: { $in: positions.map((p) => p.marketId) } },
    { question: 1, status: 1, venueRef: 1 },
  ).lean();
  const byId = new Map(markets.map((m) => [m._id, m]));
  return positions.flatMap((p) => {
    const market = byId.get(p.marketId);
    if (!market) return [];
    const holding: AgentHolding = {
      marketId: p.marketId,
      yesMicro: Math.max(0, p.sharesYesMicro - p.reservedYesMicro),
      noMicro: Math.max(0, p.sharesNoMicro - p.reservedNoMicro),
      version: p.appliedSeq,
    };
    return [{ holding, market }];
  });
}

/**
 * A planned trade's idempotency key: the same plan made from the same holding (its ledger version)
 * gives the same key, so a retried call (the client timed out while the trades ran) replays each
 * trade instead of placing it twice; once a trade has changed the holding, the next plan is another.
 */
const idempotencyKeyOf = (venue: VenueId, t: PlannedTrade) =>
  'copytrading:' +
  createHash('sha256')
    .update(
      JSON.stringify([venue, t.marketId, t.side, t.action, t.amountMicro, t.sharesMicro, t.holdingVersion]),
    )
    .digest('base64url')
    .slice(0, 32);

const tradeRequest = (venueName: string, t: PlannedTrade, extra: Record<string, unknown>) =>
  TradeRequestSchema.parse({
    market_id: t.marketId,
    side: t.side,
    action: t.action,
    amount: fromMicro(t.amountMicro),
    shares: fromMicro(t.sharesMicro),
    venue: venueName,
    ...extra,
  });

/** A refusal a plan's trade met, in words; errors that are not the trade's own (403, outages) escape. */
function refusalOf(err: unknown): { error: string; code: string } {
  if (err instanceof AppError && err.status !== 403 && err.status < 500)
    return { error: err.message, code: err.code };
  if (err instanceof RequestValidationError) return { error: err.message, code: 'validation_error' };
  throw err;
}

/**
 * Each planned trade priced by a dry run of the trade endpoint (the same quote a live trade fills
 * at now), as the answer shows it. A trade its dry run refuses (closed market, no liquidity, over
 * a limit) is left out, and why is told in `errors`.
 */
async function quotePlan(
  deps: VenueTradingDeps,
  agent: AgentRecord,
  venueName: string,
  planned: PlannedTrade[],
  errors: string[],
): Promise<{ plan: PlannedTrade; row: CopytradingTrade }[]> {
  const quote = async (t: PlannedTrade) => {
    try {
      return (await submitTrade(deps, agent, tradeRequest(venueName, t, { dry_run: true }))) as TradeResult;
    } catch (err) {
      return refusalOf(err);
    }
  };
  // A few at a time: on an external venue each dry run reads the venue's book.
  const quotes: Awaited<ReturnType<typeof quote>>[] = [];
  for (const batch of chunks(planned, PARALLEL_QUOTES)) quotes.push(...(await Promise.all(batch.map(quote))));
  return planned.flatMap((t, i) => {
    const q = quotes[i]!;
    if ('code' in q || !q.success) {
      const why = 'code' in q ? q.error : (q.error ?? 'refused');
      errors.push(`Not planned: ${t.action} ${t.side} on "${t.title}": ${why}`);
      return [];
    }
    const shares = t.action === 'buy' ? q.shares_bought : fromMicro(t.sharesMicro);
    const cost = t.action === 'buy' ? fromMicro(t.amountMicro) : q.cost;
    const row: CopytradingTrade = {
      market_id: t.marketId,
      market_title: t.title,
      action: t.action,
      side: t.side,
      shares: round5(shares),
      // The quote's average fill: what it spends (a buy) or receives (a sale) per share.
      estimated_price: shares > 0 ? round6(q.cost / shares) : q.price_before,
      estimated_cost: round2(cost),
      whale_wallet: t.whaleWallet,
      source_wallet: t.whaleWallet,
      edge: t.edge,
      confidence: t.confidence,
      whale_position_usd: round2(t.whaleUsd),
      reason: t.reason,
    };
    return [{ plan: t, row }];
  });
}

/**
 * Each trade through the normal trade path (safeguards, ledger, exactly once), one after another
 * (each buy spends the balance the next one checks), under its plan-derived idempotency key.
 */
async function runPlan(
  deps: VenueTradingDeps,
  agent: AgentRecord,
  venue: VenueId,
  venueName: string,
  quoted: { plan: PlannedTrade; row: CopytradingTrade }[],
): Promise<number> {
  let executed = 0;
  for (const { plan: t, row } of quoted) {
    const req = tradeRequest(venueName, t, {
      idempotency_key: idempotencyKeyOf(venue, t),
      source: COPYTRADING_SOURCE,
      reasoning: `Copytrading: ${t.action} ${row.shares} ${t.side} to mirror whale positions on ${t.title} (${t.reason})`,
      signal_data: {
        signal_source: 'whale_copytrading',
        whale_wallet: t.whaleWallet,
        whale_size: row.whale_position_usd,
        edge: t.edge,
        confidence: t.confidence,
      },
    });
    try {
      const r = (await submitTrade(deps, agent, req)) as TradeResult;
      Object.assign(row, {
        success: r.success,
        trade_id: r.trade_id,
        error: r.success ? null : r.error,
        error_code: r.success ? null : r.error_code,
      });
    } catch (err) {
      const refusal =
        err instanceof AppError || err instanceof RequestValidationError
          ? { error: err.message, code: err instanceof AppError ? err.code : 'validation_error' }
          : null;
      if (!refusal) deps.log.error({ err, marketId: t.marketId }, 'copytrading: a trade failed unexpectedly');
      Object.assign(row, {
        success: false,
        trade_id: null,
        error:
          refusal?.error ??
          `This trade failed unexpectedly; GET /api/sdk/trades?market_id=${t.marketId}&include_failed=true shows whether it was recorded.`,
        error_code: refusal?.code ?? 'internal_error',
      });
    }
    if (row.success) executed++;
  }
  return executed;
}

/**
 * `POST /api/sdk/copytrading/execute` (client-contract §12.2): the copied wallets' current public
 * positions (cached), what they agree on weighted by size (opposite outcomes skipped), the top
 * markets by conviction scaled to `max_usd_per_position`, against the agent's holdings on the venue
 * it copies to (sim or the wallets' own venue), as the trades that bring it in line. `dry_run`
 * plans (the published skill asks for the plan and trades it itself); otherwise each trade goes
 * through the trade endpoint's path, and its outcome is marked on it.
 */
export async function executeCopytrading(
  deps: VenueTradingDeps,
  agent: AgentRecord,
  body: CopytradingRequest,
): Promise<CopytradingResult> {
  const { venue, warning } = normalizeVenue(body.venue)!;
  const source = deps.venues.withPublicWallets();
  if (!isPoolVenue(venue) && venue !== source.id)
    throw invalidField(
      'venue',
      `copies of ${source.id} wallets trade on "sim" or "${source.id}", not "${venue}"`,
      body.venue,
      `Send venue "sim" (paper trading) or "${source.id}".`,
    );
  const errors: string[] = warning ? [warning] : [];
  const wallets = [...new Set(body.wallets.map((w) => w.toLowerCase()))];
  const whales = await whaleHoldings(deps, source, wallets);
  for (const [w, why] of whales.failed) errors.push(`The positions of ${w} could not be read: ${why}`);
  const consensus = whaleConsensus(whales.read);
  const topN = body.top_n ?? autoTopN(await balanceOn(deps, agent, venue));
  const only = body.market_ids ? new Set(body.market_ids) : null;
  const targets =
    whales.read.size > 0
      ? await copyTargets(deps, agent, source.id, consensus.markets, topN, only, errors)
      : [];

  const holdings = await openHoldings(deps, agent._id, venue);
  let exits: Awaited<ReturnType<typeof whaleExits>> = [];
  if (body.detect_whale_exits && whales.failed.size > 0)
    errors.push('Whale exits not checked: a wallet could not be read, so what it still holds is unknown.');
  else if (body.detect_whale_exits)
    exits = (
      await whaleExits(deps.models, agent._id, venue, wallets, source.id, consensus.held, holdings)
    ).filter((e) => !only || only.has(e.marketId));

  const totalUsd = consensus.markets.reduce((s, m) => s + m.whaleUsd, 0);
  let planned = planCopyTrades(
    targets,
    new Map(holdings.map((h) => [h.holding.marketId, h.holding])),
    exits,
    totalUsd,
    {
      maxUsdPerPosition: body.max_usd_per_position,
      buyOnly: body.buy_only,
      maxBuyMicro: deps.trading.get(venue).capabilities.maxBuyMicro,
    },
  );
  const cap = body.max_trades ?? MAX_PLAN_TRADES;
  if (planned.length > cap) {
    errors.push(`${planned.length - cap} more trade(s) left for the next run (max_trades ${cap}).`);
    planned = planned.slice(0, cap);
  }
  const quoted = await quotePlan(deps, agent, body.venue, planned, errors);
  const executed = body.dry_run ? null : await runPlan(deps, agent, venue, body.venue, quoted);

  const counts =
    `${whales.read.size} wallet(s) analyzed, ${consensus.positionsFound} position(s), ` +
    `${consensus.conflicts} conflict(s) skipped` +
    (consensus.stale ? `, ${consensus.stale} priced below 0.1 or above 0.9 skipped` : '') +
    `, ${targets.length} market(s) copied (top ${topN})` +
    (exits.length ? `, ${exits.length} whale exit(s)` : '');
  const summary =
    executed === null
      ? `${quoted.length} trade(s) planned on ${venue}: ${counts}.`
      : `${executed} of ${quoted.length} trade(s) executed on ${venue}: ${counts}.`;
  return {
    success: whales.read.size > 0,
    dry_run: body.dry_run,
    venue,
    wallets_analyzed: whales.read.size,
    positions_found: consensus.positionsFound,
    conflicts_skipped: consensus.conflicts,
    top_n_used: topN,
    whale_exits_detected: exits.length,
    trades_needed: quoted.length,
    ...(executed === null ? {} : { trades_executed: executed }),
    errors,
    summary,
    trades: quoted.map((q) => q.row),
  };
}
