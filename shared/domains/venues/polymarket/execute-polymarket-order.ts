import { randomInt } from 'node:crypto';
import { afterWrite } from '../../../infra/faults.js';
import { VenueHttpError } from '../../../infra/http/venue-http-error.js';
import { NeverRetry, VenueOutage } from '../../../infra/queue/job-errors.js';
import type { MarketRecord } from '../../markets/market.model.js';
import type { Refusal } from '../../refusal.js';
import type { OrderState, TradeExecutionContext } from '../../trading/venue-trading.js';
import { finishTrade, recordSignedOrder } from '../../trading/trade-lifecycle.js';
import type { TradeRecord } from '../../trading/trade.model.js';
import { refusedResult, shapeOf } from '../../trading/trade-result.js';
import type { TradeResult } from '../../trading/trade.schemas.js';
import { orderAnswer, orderFill, recordOrderState } from '../../trading/venue-order-state.js';
import { clobCredentialsFor, deriveManagedClobCredentials } from './clob-credentials.js';
import { agentWalletSigner } from '../../wallets/agent-wallets.js';
import { agentWalletCredentials } from './agent-wallet-credentials.js';
import { managedSigner } from '../../wallets/managed-wallet.js';
import { clobRefusal } from './orders/clob-refusals.js';
import type { ClobCredentials, ClobOrderType } from './orders/clob-trading.js';
import type { PostOrderAnswer } from './orders/clob-trading.schemas.js';
import { limitOrderAmounts, marketBuyAmounts } from './orders/order-amounts.js';
import { orderHash, signOrder, ZERO_BYTES32, type SignedV2Order } from './orders/order-eip712.js';
import { polymarketTrading } from './polymarket-trading.js';
import { managedWalletApprovals, type ManagedApprovalsDeps } from './onchain/managed-approvals.js';
import type { WalletApprovalModels } from './onchain/wallet-approval.model.js';
import type { ClobCredentialModels } from './clob-credential.model.js';

/**
 * The chain a managed wallet's approvals are set on, and the model that records them (the
 * composition root binds both, venues.ts).
 */
export type ManagedWalletChain = Pick<ManagedApprovalsDeps, 'polygon' | 'redis'> & WalletApprovalModels;

/** A trade's context with the CLOB credentials' model beside the domains' (the venue's trading holds it). */
export type PolymarketContext = TradeExecutionContext & { deps: { models: ClobCredentialModels } };

/**
 * A managed wallet's first order waits for its trading approvals, which the service sets itself
 * (onchain/managed-approvals.ts): null to go on, or the trade's retryable refusal.
 */
async function managedWalletReady(
  ctx: TradeExecutionContext,
  t: TradeRecord,
  chain: ManagedWalletChain,
): Promise<Refusal | null> {
  const owner = ownerOfTrade(t);
  if (t.venueOrder?.signer !== 'managed' || owner.kind !== 'user') return null;
  const signer = await managedSigner(ctx.deps, owner.id);
  // No key: managedOrder refuses the trade with wallet_not_linked.
  if (!signer) return null;
  const { polygon, redis, WalletApproval } = chain;
  const models = { ...ctx.deps.models, WalletApproval };
  return managedWalletApprovals({ ...ctx.deps, polygon, redis, models }, owner.id, signer);
}

/** The owner a trade acts for, from its settings key (`user:<id>`): real trades are a user's. */
const ownerOfTrade = (t: TradeRecord) => {
  const [kind, id] = (t.ownerKey ?? '').split(':');
  return { kind: kind === 'user' ? ('user' as const) : ('agent' as const), id: id ?? '' };
};

/**
 * The L2 credentials the trade's order goes under: the agent wallet's (stored, or derived with its
 * key on first use), else the owner's: registered (external) or derived from the managed key on first use.
 */
export async function credentialsOf(ctx: PolymarketContext, t: TradeRecord): Promise<ClobCredentials | null> {
  if (t.venueOrder?.signer === 'agent') return agentWalletCredentials(ctx.deps, t.agentId);
  const owner = ownerOfTrade(t);
  const stored = await clobCredentialsFor(ctx.deps, owner);
  if (stored || t.venueOrder?.signer !== 'managed' || owner.kind !== 'user') return stored;
  return deriveManagedClobCredentials(ctx.deps, owner.id);
}

/** The key the service signs the trade's order with: the agent's own wallet, or the owner's managed one. */
async function serviceSigner(ctx: TradeExecutionContext, t: TradeRecord) {
  if (t.venueOrder!.signer === 'agent') return agentWalletSigner(ctx.deps, t.agentId);
  const owner = ownerOfTrade(t);
  return owner.kind === 'user' ? managedSigner(ctx.deps, owner.id) : null;
}

/** The managed wallet's order for this trade, signed and recorded before it is sent (a retry re-sends the same one). */
async function managedOrder(ctx: TradeExecutionContext, t: TradeRecord): Promise<SignedV2Order | Refusal> {
  const vo = t.venueOrder!;
  const signer = await serviceSigner(ctx, t);
  if (!signer)
    return {
      error:
        'The managed wallet of this account is gone (unlinked or replaced) since the trade was accepted.',
      errorCode: 'wallet_not_linked',
      retryable: false,
      hint: 'Check GET /api/sdk/settings for the wallet, then send the trade again.',
      category: 'venue',
    };
  const market = vo.orderType === 'FAK' || vo.orderType === 'FOK';
  const amounts =
    t.action === 'buy'
      ? market
        ? marketBuyAmounts(t.amountMicro / 1e6, vo.price, vo.tickSize)
        : limitOrderAmounts('BUY', t.amountMicro / 1e6 / vo.price, vo.price, vo.tickSize)
      : limitOrderAmounts('SELL', t.sharesMicro / 1e6, vo.price, vo.tickSize);
  const order = {
    salt: String(randomInt(2 ** 47)),
    maker: signer.address,
    signer: signer.address,
    tokenId: vo.tokenId,
    makerAmount: amounts.makerAmount,
    takerAmount: amounts.takerAmount,
    side: t.action === 'buy' ? ('BUY' as const) : ('SELL' as const),
    signatureType: 0,
    timestamp: String(ctx.now().getTime()),
    expiration: '0',
    metadata: ZERO_BYTES32,
    builder: ZERO_BYTES32,
  };
  const signed = await signOrder(signer, order, vo.negRisk);
  const orderId = orderHash(order, vo.negRisk);
  if (await recordSignedOrder(ctx.models, t._id, { orderId, signed })) return signed;
  // An earlier run signed one first: that is the order, whatever this run made.
  const stored = await ctx.models.Trade.findById(t._id, { venueOrder: 1 }).lean();
  return stored!.venueOrder!.signed as SignedV2Order;
}

/**
 * Amounts in an answer may be human units or base units (polymarket.md §5.2). Base units are
 * integers near the order's own amounts; a fill may beat the order's price (more shares than it
 * asked for), so human units are anything fractional or within a thousandfold of the order.
 */
const micro = (value: number, signedMicro: number) =>
  !Number.isInteger(value) || value * 1e6 <= signedMicro * 1000 ? Math.round(value * 1e6) : Math.round(value);

/** What the CLOB's answer to the post says, or null when it must be looked up by the order id. */
function stateFromAnswer(answer: PostOrderAnswer, order: SignedV2Order): OrderState | Refusal {
  if (answer.success === false || (answer.errorMsg && !answer.status))
    return clobRefusal(answer.errorMsg ?? 'rejected');
  const buy = order.side === 'BUY';
  const making = answer.makingAmount ?? 0;
  const taking = answer.takingAmount ?? 0;
  // A buy makes pUSD and takes shares; a sell the reverse.
  const paid = micro(buy ? making : taking, Number(buy ? order.makerAmount : order.takerAmount));
  const got = micro(buy ? taking : making, Number(buy ? order.takerAmount : order.makerAmount));
  const status = (answer.status ?? '').toLowerCase();
  if (status === 'live') return { sharesMicro: got, amountMicro: paid, working: 'live', canceled: false };
  if (status === 'delayed')
    return { sharesMicro: got, amountMicro: paid, working: 'delayed', canceled: false };
  if (status === 'matched') return { sharesMicro: got, amountMicro: paid, working: 'done', canceled: false };
  return clobRefusal(answer.errorMsg || 'no orders found to match with FAK order');
}

/** The order as the CLOB keeps it (a lost or duplicate post): matched size at the order's price. */
export async function orderStateOf(
  ctx: TradeExecutionContext,
  creds: ClobCredentials,
  orderId: string,
  price: number,
): Promise<OrderState | null> {
  const order = await polymarketTrading(ctx.deps).order(creds, orderId);
  if (!order) return null;
  const status = order.status.toUpperCase();
  const sharesMicro = Math.round(order.size_matched * 1e6);
  return {
    sharesMicro,
    amountMicro: Math.round(order.size_matched * (order.price || price) * 1e6),
    working: status === 'LIVE' ? 'live' : status === 'DELAYED' ? 'delayed' : 'done',
    canceled: status.startsWith('CANCEL'),
  };
}

/**
 * Runs a real-venue trade in the worker: signs it (managed wallet) or takes the client's signed
 * order, posts it under the owner's L2 credentials, books what matched and records the answer.
 * Exactly once however often it runs: the order is recorded (with its id, the order hash) before
 * it is sent; the CLOB refuses the same order twice, so a repeat finds the first by its id.
 */
export async function executePolymarketOrder(
  ctx: PolymarketContext,
  trade: TradeRecord,
  market: MarketRecord,
  chain?: ManagedWalletChain,
): Promise<TradeResult> {
  let t = trade;
  const vo = t.venueOrder;
  const refuse = async (refusal: Refusal) => {
    const holdings = { balanceMicro: 0, sharesYesMicro: 0, sharesNoMicro: 0 };
    return finishTrade(
      ctx.models,
      t._id,
      refusedResult(shapeOf(t), market, refusal, holdings, false),
      { refusal },
      ctx.now(),
    );
  };
  if (!vo) throw new NeverRetry('venue_order_missing', `Trade ${t._id} has no venue order`, 'This is a bug.');
  const creds = await credentialsOf(ctx, t);
  if (!creds)
    return refuse({
      error: 'No Polymarket CLOB credentials (credentials missing) for the wallet of this account.',
      errorCode: 'clob_credentials_missing',
      retryable: false,
      hint: 'Register them: POST /api/sdk/wallet/credentials, then send the trade again.',
      category: 'venue',
    });
  let signed = vo.signed as SignedV2Order | null;
  if (!signed && chain) {
    const notReady = await managedWalletReady(ctx, t, chain);
    if (notReady) return refuse(notReady);
  }
  if (!signed) {
    const made = await managedOrder(ctx, t);
    if ('errorCode' in made) return refuse(made);
    signed = made;
  }
  const orderId = vo.orderId ?? orderHash(signed, vo.negRisk);
  t = { ...t, venueOrder: { ...vo, orderId, signed } };

  let state: OrderState | Refusal | null = null;
  try {
    const answer = await polymarketTrading(ctx.deps).postOrder(creds, signed, vo.orderType as ClobOrderType);
    // The relay is a write to the world: a crash test may stop the worker right after it.
    afterWrite();
    state = stateFromAnswer(answer, signed);
  } catch (err) {
    if (!(err instanceof VenueHttpError)) throw err;
    // A refusal of the order itself is final; "Duplicated" means an earlier run's post went through.
    if (err.kind === 'client' && !/duplicat/i.test(err.message)) state = clobRefusal(err.message);
  }
  // The answer was lost or the order was a duplicate: the CLOB knows the order by its id. Not
  // found and not refused means it may still be in flight: the job retries, re-sending the same order.
  state ??= await orderStateOf(ctx, creds, orderId, vo.price);
  if (!state)
    throw new VenueOutage(
      'venue_unavailable',
      'Polymarket did not confirm the order yet',
      'The job retries with the same order.',
    );
  if ('errorCode' in state) return refuse(state);

  t = await recordOrderState(ctx, t, state);
  const result = await orderAnswer(ctx, t, market, state);
  const open = state.working !== 'done';
  if (!open && state.sharesMicro === 0) return refuse(clobRefusal('no orders found to match with FAK order'));
  return finishTrade(
    ctx.models,
    t._id,
    result,
    {
      fill: orderFill(state, market, result),
      ...(open ? { open: true } : {}),
    },
    ctx.now(),
  );
}
