import type { VenueTradingDeps } from './venue-trading.js';
import { z } from 'zod';
import { AppError, invalidField, RequestValidationError } from '../../infra/errors.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { rollForwardAgent } from '../ledger/ledger.js';
import type { Admission } from './trade.model.js';
import { guardedTrade, guardTrade, loadGuard, releaseTrade } from '../limits/trade-guard.js';
import { fromMicro, toMicro } from '../money.js';
import {
  BATCHABLE_EXTERNAL_VENUE_IDS,
  DEFAULT_VENUE,
  isPoolVenue,
  LEGACY_SIM_ALIASES,
  normalizeVenue,
  POOL_VENUE,
} from '../venues/venue-id.js';
import { submitTrade } from './submit-trade.js';
import { lower, TradeRequestSchema, type TradeRequest, type TradeResult } from './trade.schemas.js';

/**
 * Submit a batch of trades: `POST /api/sdk/trades/batch` (client-contract §4.4), up to 30 buys in
 * one request, each leg a normal trade (`submitTrade`: the same safeguards, ledger, queue and
 * exactly-once execution as `POST /api/sdk/trade`).
 *
 * Every leg is first priced by a dry run (the live plan on the current state): its projected
 * average price gives `dry_run_price` and `slippage` (relative to the side's price before), and a
 * leg projected beyond `max_slippage` is `aborted`, not placed. A placed leg carries the limit
 * price `price_before × (1 + max_slippage)`, so the book refuses it if the price moved since.
 *
 * `atomic: true` means all or none, decided BEFORE any leg runs (nothing is ever reversed): the
 * legs must be on distinct markets (so their projections do not depend on each other); every leg's
 * projection must fill within `max_slippage`; the balance must cover the batch's total; and every
 * leg passes the account safeguards (kill switch, cooldowns, daily cap), its admission counted and
 * held, so the batch as a whole fits the daily cap. A refusal of any of these refuses the whole
 * batch with nothing applied (each admission taken is given back). Only then do the legs run. A leg
 * can still fail in execution (a race: another trade moved the price past the limit, or spent the
 * cash, between admission and execution); the answer then says exactly which legs filled
 * (`applied: "partial"`, a warning) instead of pretending atomicity it cannot guarantee.
 * Atomic batches are sim only: a Polymarket wallet's USDC cannot be held for a whole batch.
 */

export const MAX_BATCH_LEGS = 30;
const BATCH_VENUES = [POOL_VENUE, ...LEGACY_SIM_ALIASES, ...BATCHABLE_EXTERNAL_VENUE_IDS] as const;

export const BatchTradeRequestSchema = z
  .object({
    trades: z
      .array(
        z.object({
          market_id: TradeRequestSchema.shape.market_id,
          side: TradeRequestSchema.shape.side,
          amount: z.number().min(0.01).max(1e9).meta({ description: 'Spend, 2 decimals.' }),
          action: z
            .preprocess(lower, z.enum(['buy']).optional())
            .meta({ description: 'Buys only; sell with POST /api/sdk/trade.' }),
        }),
      )
      .min(1)
      .max(MAX_BATCH_LEGS)
      .meta({ description: `Buys only, at most ${MAX_BATCH_LEGS}.` }),
    venue: z.preprocess(lower, z.enum(BATCH_VENUES)).default(DEFAULT_VENUE),
    source: z.string().max(200).nullish(),
    dry_run: z.boolean().default(false),
    atomic: z.boolean().default(false),
    max_slippage: z
      .number()
      .min(0)
      .max(1)
      .default(0.02)
      .meta({ description: 'Largest relative rise of the average fill over the price before, per leg.' }),
  })
  .meta({ id: 'BatchTradeRequest' });
export type BatchTradeRequest = z.output<typeof BatchTradeRequestSchema>;

export const BatchLegResultSchema = z.object({
  market_id: z.string(),
  side: z.enum(['yes', 'no']),
  success: z.boolean(),
  trade_id: z.string().nullable(),
  error: z.string().nullable(),
  error_code: z.string().nullable(),
  hint: z.string().nullable(),
  fill_status: z.enum(['filled', 'submitted', 'unconfirmed', 'failed']),
  cost: z.number(),
  shares: z.number(),
  price: z.number().meta({ description: 'Average fill price; the side price when nothing filled.' }),
  dry_run_price: z.number().meta({ description: 'Projected average fill price (0 when not projectable).' }),
  slippage: z.number().meta({ description: 'Projected relative rise over the price before.' }),
  aborted: z.boolean().meta({
    description:
      'Not placed: its dry-run projection refused it (beyond max_slippage, closed market, …) or the atomic batch was refused.',
  }),
});
type LegResult = z.infer<typeof BatchLegResultSchema>;

export const BatchTradeResultSchema = z
  .object({
    success: z.boolean().meta({ description: 'True when every leg succeeded.' }),
    atomic: z.boolean(),
    applied: z.enum(['all', 'none', 'partial']),
    results: z.array(BatchLegResultSchema),
    total_cost: z.number(),
    failed_count: z.number(),
    warnings: z.array(z.string()),
    execution_time_ms: z.number(),
    dry_run: z.boolean(),
  })
  .meta({ id: 'BatchTradeResult' });
export type BatchTradeResult = z.infer<typeof BatchTradeResultSchema>;

type Leg = BatchTradeRequest['trades'][number];

interface Projection {
  quote: TradeResult | null;
  /** Projected average fill price and its rise over the price before. */
  avg: number;
  priceBefore: number;
  slippage: number;
  /** Why the leg cannot be placed; null when it can. */
  refusal: { error: string; code: string; hint: string | null } | null;
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/** A thrown error as a leg's refusal: the service's own errors keep their message and fix. */
function asRefusal(err: unknown): Projection['refusal'] {
  if (err instanceof AppError) return { error: err.message, code: err.code, hint: err.fix };
  if (err instanceof RequestValidationError)
    return { error: err.message, code: 'validation_error', hint: err.fix ?? null };
  throw err;
}

function legResult(leg: Leg, p: Projection, r: Partial<LegResult>): LegResult {
  return {
    market_id: leg.market_id,
    side: leg.side,
    success: false,
    trade_id: null,
    error: null,
    error_code: null,
    hint: null,
    fill_status: 'failed',
    cost: 0,
    shares: 0,
    price: p.priceBefore,
    dry_run_price: p.avg,
    slippage: p.slippage,
    aborted: false,
    ...r,
  };
}

/** A leg its projection refused: not placed. */
const refusedLeg = (leg: Leg, p: Projection, aborted: boolean) =>
  legResult(leg, p, { error: p.refusal!.error, error_code: p.refusal!.code, hint: p.refusal!.hint, aborted });

/** A trade's answer as a leg of the batch. */
function fromTrade(leg: Leg, p: Projection, t: TradeResult): LegResult {
  const shares = t.shares_bought;
  return legResult(leg, p, {
    success: t.success,
    trade_id: t.trade_id,
    error: t.error,
    error_code: t.error_code,
    hint: t.hint,
    fill_status: t.fill_status,
    cost: t.cost,
    shares,
    price: shares > 0 ? round6(t.cost / shares) : t.price_before,
  });
}

export async function submitBatch(
  deps: VenueTradingDeps,
  agent: AgentRecord,
  body: BatchTradeRequest,
): Promise<BatchTradeResult> {
  const started = performance.now();
  const { venue, warning } = normalizeVenue(body.venue)!;
  if (body.atomic && !isPoolVenue(venue))
    throw invalidField(
      'atomic',
      `atomic batches are sim only: the wallet's USDC on ${venue} cannot be held for the whole batch`,
      body.atomic,
      'Send atomic: false (each leg stands alone), or trade the batch on venue "sim".',
    );
  if (body.atomic) {
    const seen = new Set<string>();
    for (const [i, leg] of body.trades.entries()) {
      if (seen.has(leg.market_id))
        throw invalidField(
          `trades.${i}.market_id`,
          'the legs of an atomic batch must be on distinct markets',
          leg.market_id,
          'Merge the legs on one market into one leg, or send atomic: false.',
        );
      seen.add(leg.market_id);
    }
  }
  const warnings = warning ? [warning] : [];
  const request = (leg: Leg, extra: Partial<TradeRequest>): TradeRequest =>
    TradeRequestSchema.parse({
      market_id: leg.market_id,
      side: leg.side,
      action: 'buy',
      amount: leg.amount,
      venue: body.venue,
      source: body.source ?? null,
      ...extra,
    });

  // 1. Every leg priced by a dry run (the live plan, no side effect).
  const projections = await Promise.all(
    body.trades.map(async (leg): Promise<Projection> => {
      let quote: TradeResult;
      try {
        quote = (await submitTrade(deps, agent, request(leg, { dry_run: true }))) as TradeResult;
      } catch (err) {
        return { quote: null, avg: 0, priceBefore: 0, slippage: 0, refusal: asRefusal(err) };
      }
      const priceBefore = quote.price_before;
      const avg = quote.shares_bought > 0 ? round6(quote.cost / quote.shares_bought) : 0;
      const slippage = avg > 0 && priceBefore > 0 ? round6((avg - priceBefore) / priceBefore) : 0;
      if (!quote.success)
        return {
          quote,
          avg,
          priceBefore,
          slippage,
          refusal: { error: quote.error ?? 'refused', code: quote.error_code ?? 'refused', hint: quote.hint },
        };
      const refusal =
        slippage > body.max_slippage
          ? {
              error: `Projected slippage ${(slippage * 100).toFixed(2)}% is above max_slippage ${(body.max_slippage * 100).toFixed(2)}% (average ${avg} against ${priceBefore}).`,
              code: 'slippage_exceeded',
              hint: 'Buy a smaller amount on this market, or raise max_slippage.',
            }
          : null;
      return { quote, avg, priceBefore, slippage, refusal };
    }),
  );
  const answer = (results: LegResult[]): BatchTradeResult => {
    const filled = results.filter((r) => r.success).length;
    return {
      success: filled === results.length,
      atomic: body.atomic,
      applied: body.dry_run || filled === 0 ? 'none' : filled === results.length ? 'all' : 'partial',
      results,
      total_cost: fromMicro(results.reduce((s, r) => s + (r.success ? toMicro(r.cost) : 0), 0)),
      failed_count: results.length - filled,
      warnings,
      execution_time_ms: Math.round(performance.now() - started),
      dry_run: body.dry_run,
    };
  };

  if (body.atomic) {
    // 2. The batch as a whole: every projection, then the balance for the total.
    let refusal = projections.find((p) => p.refusal)?.refusal ?? null;
    if (!refusal) {
      await rollForwardAgent(deps.models, agent._id);
      const balanceMicro = (await deps.models.Agent.findById(agent._id, { balanceMicro: 1 }).lean())
        ?.balanceMicro;
      const totalMicro = body.trades.reduce((s, l) => s + Math.round(l.amount * 100) * 10_000, 0);
      if (balanceMicro === undefined || totalMicro > balanceMicro)
        refusal = {
          error: `Insufficient balance for the batch: ${fromMicro(totalMicro)} $SIM in total, ${fromMicro(balanceMicro ?? 0)} available.`,
          code: 'insufficient_balance',
          hint: 'Send fewer or smaller legs, or atomic: false to place what the balance covers.',
        };
    }
    // 3. Every leg's safeguards, admissions held together (so the whole batch fits the daily cap).
    const admissions: (Admission | null)[] = [];
    const giveBack = (taken: (Admission | null)[]) =>
      Promise.all(
        taken.map((a, i) =>
          a
            ? releaseTrade(deps, a, {
                agentId: agent._id,
                venue,
                marketId: body.trades[i]!.market_id,
                side: body.trades[i]!.side,
              }).catch((err: unknown) => deps.log.warn({ err }, 'batch: a daily-limit count not given back'))
            : undefined,
        ),
      );
    if (!refusal && !body.dry_run) {
      const guard = await loadGuard(deps, agent);
      for (const leg of body.trades) {
        const guarded = guardedTrade(
          { marketId: leg.market_id, side: leg.side, action: 'buy', amountMicro: toMicro(leg.amount) },
          venue,
        );
        try {
          // The legs' admissions reserve the automaton's budget one after another, so together they fit it.
          const guarding = await guardTrade(deps, guard, agent._id, guarded);
          if ('refusal' in guarding) {
            const r = guarding.refusal;
            refusal = { error: r.error, code: r.errorCode, hint: r.hint ?? null };
            break;
          }
          admissions.push(guarding.admission);
        } catch (err) {
          refusal = asRefusal(err);
          break;
        }
      }
      if (refusal) await giveBack(admissions);
    }
    if (refusal) {
      const why = `Not placed: an atomic batch places all legs or none, and it was refused (${refusal.error})`;
      warnings.push(why);
      return answer(
        body.trades.map((leg, i) =>
          projections[i]!.refusal
            ? refusedLeg(leg, projections[i]!, true)
            : legResult(leg, projections[i]!, {
                error: why,
                error_code: refusal!.code,
                hint: refusal!.hint,
                aborted: true,
              }),
        ),
      );
    }
    if (body.dry_run)
      return answer(body.trades.map((leg, i) => fromTrade(leg, projections[i]!, projections[i]!.quote!)));
    // 4. The legs run, each carrying its held admission.
    const results = await runLegs(deps, agent, body, projections, request, admissions);
    // Legs that never got recorded give their admission back (at most once per admission).
    await giveBack(admissions.map((a, i) => (results[i]!.trade_id ? null : a)));
    const filled = results.filter((r) => r.success);
    if (filled.length < results.length)
      warnings.push(
        `Atomic batch partially applied: the batch was admitted as a whole, then ${results.length - filled.length} leg(s) failed in execution (the market or balance changed in between); ${filled.length} leg(s) filled and stay filled — see each leg's success.`,
      );
    return answer(results);
  }

  // Not atomic: each leg stands alone.
  if (body.dry_run)
    return answer(
      body.trades.map((leg, i) => {
        const p = projections[i]!;
        return p.quote && !p.refusal ? fromTrade(leg, p, p.quote) : refusedLeg(leg, p, true);
      }),
    );
  return answer(await runLegs(deps, agent, body, projections, request, null));
}

/**
 * The legs through the normal pipeline, together (the worker group-commits them). A leg whose
 * projection refused it is not placed; each placed leg is limited to `max_slippage`.
 */
async function runLegs(
  deps: VenueTradingDeps,
  agent: AgentRecord,
  body: BatchTradeRequest,
  projections: Projection[],
  request: (leg: Leg, extra: Partial<TradeRequest>) => TradeRequest,
  admissions: (Admission | null)[] | null,
): Promise<LegResult[]> {
  return Promise.all(
    body.trades.map(async (leg, i): Promise<LegResult> => {
      const p = projections[i]!;
      if (p.refusal) return refusedLeg(leg, p, true);
      const limit = round6(Math.min(0.999, Math.max(p.avg, p.priceBefore * (1 + body.max_slippage))));
      try {
        const t = await submitTrade(
          deps,
          agent,
          request(leg, { price: limit }),
          admissions ? admissions[i] : undefined,
        );
        return fromTrade(leg, p, t as TradeResult);
      } catch (err) {
        if (!(err instanceof AppError) && !(err instanceof RequestValidationError)) {
          // Other legs may have filled: the batch still answers, this leg's outcome told as unknown.
          deps.log.error({ err, marketId: leg.market_id }, 'batch leg failed unexpectedly');
          return legResult(leg, p, {
            error: 'This leg failed unexpectedly; if it was recorded, GET /api/sdk/trades shows its outcome.',
            error_code: 'internal_error',
            hint: `See GET /api/sdk/trades?market_id=${leg.market_id}&include_failed=true before placing it again.`,
          });
        }
        const r = asRefusal(err)!;
        return legResult(leg, p, { error: r.error, error_code: r.code, hint: r.hint });
      }
    }),
  );
}
