import type { InfraDeps } from '../../../infra/infra-deps.js';
import type { Models } from '../../models.js';
import type { VenueRegistry } from '../venue-registry.js';
import type { OrderState, TradeExecutionContext, TradingVenues } from '../../trading/venue-trading.js';
import type { SettingsCache } from '../../limits/settings-cache.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { NeverRetry, VenueOutage } from '../../../infra/queue/job-errors.js';
import { afterWrite } from '../../../infra/faults.js';
import { VenueHttpError } from '../../../infra/http/venue-http-error.js';
import type { MarketRecord } from '../../markets/market.model.js';
import { refusalOf, type Refusal } from '../../refusal.js';
import { dflowTrading, SolanaRpcError, type DflowOrderStatus } from '../dflow/dflow-trading.js';
import { tradeContext } from '../../trading/context.js';
import { orderAnswer, orderFill, recordOrderState } from '../../trading/venue-order-state.js';
import { NO_USDC_ACCOUNT, QUOTE_GONE, type KalshiSigned } from './kalshi-trade.js';
import { closeOpenTrade, finishTrade, queueLateFillEffects } from '../../trading/trade-lifecycle.js';
import type { TradeRecord } from '../../trading/trade.model.js';
import { refusedResult, shapeOf } from '../../trading/trade-result.js';
import type { TradeResult } from '../../trading/trade.schemas.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ExecuteKalshiOrderDeps = Pick<InfraDeps, 'env' | 'log' | 'queues' | 'metrics' | 'clock'> & {
  models: Models;
  venues: VenueRegistry;
  trading: TradingVenues;
  caches: SettingsCache;
};

/**
 * A Kalshi trade in the worker (kalshi.md §2.6): the signed transaction recorded by the submit is
 * sent to the Solana RPC, then DFlow's `/order-status` says how the async order ends: `closed` with
 * fills (booked through the ledger like a Polymarket match), `failed` (input reverted) or `expired`
 * (never landed). Exactly once however often it runs: the transaction is recorded before it is
 * sent and its signature is the order id, so a resend is the same order, and fills are booked per
 * cumulative size (bookMatches). An order still working when the job is done is finished `open`
 * and followed by `follow-kalshi-order` jobs on the `trades` queue.
 */

/** How long the trade job itself waits for the order to close before handing it to the follow jobs. */
const IN_JOB_WAIT_MS = 4000;
const IN_JOB_POLL_MS = 250;
/** The follow jobs: one poll every FOLLOW_POLL_MS, at most MAX_FOLLOW_POLLS (10 minutes). */
export const FOLLOW_POLL_MS = 2000;
const MAX_FOLLOW_POLLS = 300;

const TERMINAL = new Set<DflowOrderStatus['status']>(['closed', 'failed', 'expired']);

const venueRefusal = refusalOf;

const NEW_QUOTE = 'Get a new quote (POST /api/sdk/trade/kalshi/quote), sign it and submit it.';

/** An expired quote, in the exact words of the contract (client-contract §4.3); what happened goes in the hint. */
const quoteExpired = (detail: string): Refusal => ({ ...QUOTE_GONE, hint: `${detail} ${QUOTE_GONE.hint}` });

/** The node refused the transaction (its own words kept: the client classifies them). */
function rpcRefusal(err: SolanaRpcError, wallet: string): Refusal {
  const text = err.rpcMessage;
  if (/invalid account owner/i.test(text))
    return { ...NO_USDC_ACCOUNT(wallet), error: `Invalid account owner: ${text}` };
  if (/signature verification|signature is invalid/i.test(text))
    return venueRefusal(
      'signature_invalid',
      'Transaction did not pass signature verification',
      `Sign the quote's message bytes with your wallet key. ${NEW_QUOTE}`,
      'agent',
    );
  if (/blockhash not found/i.test(text))
    return quoteExpired(
      `The quote's blockhash expired before the transaction was sent (${text}); nothing was spent.`,
    );
  if (/custom program error: 0x1|insufficient funds|no record of a prior credit/i.test(text))
    return venueRefusal(
      'insufficient_balance',
      `Insufficient balance on Solana: ${text}`,
      'Fund the wallet with USDC and SOL for fees, then quote again.',
      'balance',
    );
  if (err.code === -32005 || /unhealthy|behind/i.test(text))
    return {
      ...venueRefusal(
        'venue_unavailable',
        `The Solana RPC node is unavailable (${text}); nothing was sent.`,
        `Retry in a minute. ${NEW_QUOTE}`,
      ),
      retryable: true,
    };
  return venueRefusal('transaction_rejected', `Solana refused the transaction: ${text}`, NEW_QUOTE);
}

/** Where a DFlow order stands, in the terms of a venue order (contracts and USDC, base units). */
function stateOf(t: TradeRecord, s: DflowOrderStatus): OrderState {
  const [inA, outA] = [Number(s.inAmount ?? 0), Number(s.outAmount ?? 0)];
  const done = TERMINAL.has(s.status);
  // A buy spends USDC (in) for contracts (out); a sell the reverse. Only `closed` has final amounts.
  const filled = s.status === 'closed' || outA > 0;
  return {
    sharesMicro: filled ? (t.action === 'buy' ? outA : inA) : 0,
    amountMicro: filled ? (t.action === 'buy' ? inA : outA) : 0,
    working: done ? 'done' : 'delayed',
    canceled: s.status !== 'closed' && done,
  };
}

/** Why an order that ended without a fill did. */
function endRefusal(s: DflowOrderStatus): Refusal {
  if (s.status === 'expired')
    return quoteExpired('The transaction never landed before its blockhash expired; nothing was spent.');
  if (s.status === 'failed') {
    const refunded = (s.reverts ?? []).reduce((sum, r) => sum + Number(r.amount), 0) / 1e6;
    return venueRefusal(
      'order_failed',
      `The order failed on Kalshi: nothing was filled${refunded ? ` and ${refunded} was refunded to the wallet` : ''}.`,
      'The market may have stopped trading or moved; check it and quote again.',
      'market',
    );
  }
  return venueRefusal('order_unfilled', 'The order closed without a fill.', NEW_QUOTE, 'price');
}

async function statusOf(deps: ExecuteKalshiOrderDeps, t: TradeRecord): Promise<DflowOrderStatus | null> {
  const signed = t.venueOrder!.signed as KalshiSigned;
  return dflowTrading(deps).orderStatus(t.venueOrder!.orderId!, signed.lastValidBlockHeight);
}

export async function executeKalshiOrder(
  ctx: TradeExecutionContext,
  trade: TradeRecord,
  market: MarketRecord,
): Promise<TradeResult> {
  const vo = trade.venueOrder;
  if (!vo?.orderId || !vo.signed)
    throw new NeverRetry(
      'venue_order_missing',
      `Trade ${trade._id} has no signed transaction`,
      'This is a bug.',
    );
  const signed = vo.signed as KalshiSigned;
  const refuse = (r: Refusal) =>
    finishTrade(
      ctx.models,
      trade._id,
      refusedResult(
        shapeOf(trade),
        market,
        r,
        { balanceMicro: 0, sharesYesMicro: 0, sharesNoMicro: 0 },
        false,
      ),
      { refusal: r },
      ctx.now(),
    );
  const dflow = dflowTrading(ctx.deps);
  let sent = false;
  let refused: Refusal | null = null;
  try {
    await dflow.send(signed.transaction);
    // The relay is a write to the world: a crash test may stop the worker right after it.
    afterWrite();
    sent = true;
  } catch (err) {
    if (err instanceof SolanaRpcError) {
      if (/already been processed/i.test(err.rpcMessage)) sent = true;
      else refused = rpcRefusal(err, signed.wallet);
    } else if (!(err instanceof VenueHttpError)) throw err;
  }
  // Whatever the send said, DFlow's word on the signature decides whether the order exists
  // (a resend after an earlier run's send may be refused, e.g. its blockhash is gone by now).
  let status = await statusOf(ctx.deps, trade);
  if (!status && refused) return refuse(refused);
  if (!status && !sent)
    throw new VenueOutage(
      'venue_unavailable',
      'The Solana RPC did not take the transaction yet',
      'The job retries with the same transaction.',
    );
  const deadline = Date.now() + IN_JOB_WAIT_MS;
  while ((!status || !TERMINAL.has(status.status)) && Date.now() < deadline) {
    await sleep(IN_JOB_POLL_MS);
    status = await statusOf(ctx.deps, trade);
  }
  if (!status) status = { status: 'pending' };
  const state = stateOf(trade, status);
  if (state.working === 'done' && state.sharesMicro === 0) return refuse(endRefusal(status));
  const t = await recordOrderState(ctx, trade, state);
  const result = await orderAnswer(ctx, t, market, state);
  const open = state.working !== 'done';
  const answer = await finishTrade(
    ctx.models,
    t._id,
    result,
    { fill: orderFill(state, market, result), ...(open ? { open: true } : {}) },
    ctx.now(),
  );
  if (open)
    await ctx.deps.queues.enqueue(
      'follow-kalshi-order',
      { tradeId: t._id, poll: 0 },
      { delay: FOLLOW_POLL_MS },
    );
  return answer;
}

/**
 * The `follow-kalshi-order` job: one look at an open Kalshi order; new fills are booked, an order
 * DFlow is done with closes its trade (`filled`, or `canceled` with nothing filled), a working one
 * is looked at again later.
 */
export async function followKalshiOrder(
  deps: ExecuteKalshiOrderDeps,
  tradeId: string,
  poll: number,
): Promise<{ status: string }> {
  const trade = await deps.models.Trade.findById(tradeId).lean();
  if (!trade || trade.status !== 'open' || trade.venue !== 'kalshi')
    return { status: trade?.status ?? 'unknown' };
  const ctx = tradeContext(deps);
  const status = await statusOf(deps, trade);
  if (status) {
    const state = stateOf(trade, status);
    const t = await recordOrderState(ctx, trade, state);
    if (state.working === 'done') {
      const market = (await deps.models.Market.findById(t.marketId).lean())!;
      const result =
        state.sharesMicro > 0
          ? await orderAnswer(ctx, t, market, state)
          : refusedResult(
              shapeOf(t),
              market,
              endRefusal(status),
              { balanceMicro: 0, sharesYesMicro: 0, sharesNoMicro: 0 },
              false,
            );
      await closeOpenTrade(deps.models, t._id, {
        status: state.sharesMicro > 0 ? 'filled' : 'canceled',
        result,
        fill: orderFill(state, market, result),
        now: deps.clock(),
      });
      // The same effects as a fill made at once: trade.executed, the buy's monitor, price alerts.
      if (state.sharesMicro > 0) await queueLateFillEffects(deps, t._id);
      return { status: status.status };
    }
  }
  if (poll < MAX_FOLLOW_POLLS)
    await deps.queues.enqueue('follow-kalshi-order', { tradeId, poll: poll + 1 }, { delay: FOLLOW_POLL_MS });
  return { status: status?.status ?? 'pending' };
}
