import type { VenueTrade, VenueTradingDeps } from '../../trading/venue-trading.js';
import { createHash, randomUUID } from 'node:crypto';
import { VenueHttpError } from '../../../infra/http/venue-http-error.js';
import type { AgentRecord } from '../../agents/agent.model.js';
import { checkStanding, guardedTrade, loadGuard } from '../../limits/trade-guard.js';
import type { MarketRecord } from '../../markets/market.model.js';
import { resolutionLabel, sidePayoutMicro } from '../../markets/resolution.js';
import { heldElsewhere } from '../../positions/holder.js';
import { positionId } from '../../positions/position.model.js';
import { type Refusal, isDuplicateKey, refusalOf } from '../../refusal.js';
import {
  dflowRefusal,
  dflowTrading,
  USDC_MINT,
  type DflowMarket,
  type DflowOrder,
} from '../dflow/dflow-trading.js';
import {
  allSigned,
  messageDigest,
  parseWireTransaction,
  transactionId,
  type WireTransaction,
} from '../dflow/solana-transaction.js';
import { isServiceMarketId } from '../external-ids.js';
import { venueUnavailable } from '../venue-unavailable.js';
import { PROVE_OWNERSHIP_HINT, proofVerifyUrl, solanaWalletAddress } from './solana-wallet.js';
import { solanaWalletOf } from './solana-wallet-setting.js';
import type { SolanaWalletProofModels } from './solana-wallet-proof.model.js';
import type { KalshiQuoteModel, KalshiQuoteRecord } from './kalshi-quote.model.js';
import { requireClaimed } from '../../trading/real-venue-trade.js';
import { recordAndRun } from '../../trading/record-and-run.js';
import { FINAL_TRADE_STATUSES, type TradeRecord, type VenueOrder } from '../../trading/trade.model.js';
import {
  MARKET_NOT_FOUND,
  refusedResult,
  submittedResult,
  venueOrderResult,
  type TradeShape,
} from '../../trading/trade-result.js';
import type { TradeRequest, TradeResult } from '../../trading/trade.schemas.js';
import type {
  SignedQuoteRequest as KalshiQuoteRequest,
  SignedQuoteResult as KalshiQuoteResult,
  SignedSubmitRequest as KalshiSubmitRequest,
  SignerIdentityStatus,
} from '../../trading/signed-order.schemas.js';

/**
 * Kalshi through DFlow on Solana (client-contract §4.3, kalshi.md §2): the service asks DFlow for
 * the order's unsigned transaction (quote), the agent signs it with its registered wallet, and the
 * service relays that exact transaction and follows the async order to its end
 * (execute-kalshi-order.ts). `POST /api/sdk/trade` on kalshi only prices (dry run).
 */

/** How long a quote may be submitted (spec §8: venue-two quote validity). */
export const QUOTE_TTL_SECONDS = 300;

/** What the worker sends and follows, kept on the trade's venue order (`signed`). */
export interface KalshiSigned {
  /** The signed transaction, base64, exactly as the agent sent it. */
  transaction: string;
  quoteId: string;
  wallet: string;
  lastValidBlockHeight: number | null;
  inputMint: string;
  outputMint: string;
}

const refusal = refusalOf;

const NO_WALLET = refusal(
  'no_solana_wallet',
  'No Solana wallet linked',
  'Register your wallet: PATCH /api/sdk/user/settings {"bot_solana_wallet": "<base58 public key>"} (or prove it: GET /api/sdk/wallet/solana/challenge).',
  'agent',
);
const walletMismatch = (registered: string) =>
  refusal(
    'wallet_mismatch',
    'Wallet address does not match',
    `The registered Solana wallet is ${registered}: sign with it, or register the new one with PATCH /api/sdk/user/settings {"bot_solana_wallet": "<address>"} and quote again.`,
    'agent',
  );
const holderMismatch = (holder: string) =>
  refusal(
    'wallet_mismatch',
    'Wallet address does not match',
    `These contracts are held in the Solana wallet ${holder}: the sale is quoted for it, so sign with that wallet.`,
    'agent',
  );

/**
 * A buy from a wallet other than the one holding the position's contracts: it would split one
 * position across two wallets (and its redemption with it), as on Polymarket (holding-wallet.ts).
 */
const otherWalletBuy = (holder: string, registered: string) =>
  refusal(
    'position_in_other_wallet',
    `This position is held in the Solana wallet ${holder}, not in ${registered}: it is traded from the wallet that holds it.`,
    `Sell the contracts from ${holder} first (quote a sell: it is quoted for that wallet), or register ${holder} again (PATCH /api/sdk/user/settings {"bot_solana_wallet": "${holder}"}) to buy more there.`,
    'agent',
  );

/**
 * The wallet that signs a Kalshi order: the registered one, except for a sale of contracts held in
 * another wallet (registered before the current one), which only that wallet can sell or redeem.
 * A buy into a position held in another wallet is refused (position_in_other_wallet).
 */
async function signingWallet(
  deps: VenueTradingDeps,
  agentId: string,
  marketId: string,
  action: 'buy' | 'sell',
  registered: { address: string; proven: boolean },
): Promise<{ address: string; proven: boolean; holder: boolean } | Refusal> {
  const position = await deps.models.Position.findById(positionId(agentId, marketId, 'kalshi')).lean();
  const holder = heldElsewhere(position, registered.address);
  if (holder && action === 'sell') return { address: holder, proven: false, holder: true };
  if (holder) return otherWalletBuy(holder, registered.address);
  return { ...registered, holder: false };
}

const mismatchOf = (wallet: { address: string; holder: boolean }) =>
  wallet.holder ? holderMismatch(wallet.address) : walletMismatch(wallet.address);

export const QUOTE_GONE = refusal(
  'quote_expired',
  'Quote expired or not found',
  `Quotes are valid ${QUOTE_TTL_SECONDS / 60} minutes, for the agent, market, side and action they were made for: get a new one (POST /api/sdk/trade/kalshi/quote), sign it and submit it at once.`,
  'price',
);
const kycRequired = (wallet: string, link: string | null) =>
  refusal(
    'KYC_REQUIRED',
    'KYC_REQUIRED: KYC verification required. Your Solana wallet must be verified with DFlow Proof to buy Kalshi outcomes (only required for buys).',
    `Verify the wallet at ${link ?? proofVerifyUrl(wallet)}, then quote again (GET /api/proof/status?wallet=${wallet} shows the status).`,
    'agent',
  );
export const NO_USDC_ACCOUNT = (wallet: string) =>
  refusal(
    'no_usdc_account',
    'Invalid account owner: the wallet has no USDC token account on Solana',
    `Send USDC (Solana mainnet, mint ${USDC_MINT}) and a little SOL for fees to ${wallet}, then quote again.`,
    'balance',
  );

/** DFlow's `/order` refusals in the client's words (kalshi.md §2.4, §2.10). */
function orderRefusal(code: string, msg: string, wallet: string, deepLink: string | null): Refusal {
  if (code === 'unverified_wallet_not_allowed') return kycRequired(wallet, deepLink);
  if (code === 'route_not_found')
    return refusal(
      'route_not_found',
      `No route for this order (route_not_found): ${msg}`,
      'Kalshi is closed Thursdays 03:00–05:00 America/New_York, trades only active markets, and needs at least one whole contract: retry after the window, or with a larger amount.',
      'market',
    );
  return refusal(
    `dflow_${code}`,
    `DFlow refused the order (${code}): ${msg}`,
    'Check the market, side and amount, then quote again.',
  );
}

/**
 * The market as a Kalshi market, or why it cannot be traded there. A resolved market still takes
 * one order: the sell of contracts that pay, which DFlow redeems at their payout (kalshi.md §4:
 * the winning side at $1, or both sides of a scalar result, YES at its value and NO the rest).
 */
function kalshiTicker(
  market: MarketRecord | null,
  order: { action: 'buy' | 'sell'; side: 'yes' | 'no' },
): { ticker: string; redemption: boolean } | Refusal {
  if (!market) return MARKET_NOT_FOUND;
  if (market.importSource !== 'kalshi' || !market.venueRef?.externalId)
    return refusal(
      'market_not_on_venue',
      'This market is not a Kalshi market.',
      'Import the Kalshi market (POST /api/sdk/markets/import/kalshi {kalshi_url}) and trade its market_id.',
      'market',
    );
  const pays = sidePayoutMicro(market, order.side);
  if (pays !== null) {
    // A scalar (void) result pays both sides their part (kalshi.md §4): each side that pays is redeemed.
    if (order.action === 'sell' && pays > 0) return { ticker: market.venueRef.externalId, redemption: true };
    const label = resolutionLabel(market);
    const paying = (['yes', 'no'] as const).filter((side) => sidePayoutMicro(market, side)! > 0);
    return refusal(
      order.action === 'sell' ? 'losing_side' : 'market_closed',
      order.action === 'sell'
        ? `This market resolved ${label}: ${order.side.toUpperCase()} contracts pay nothing and cannot be redeemed.`
        : `This market resolved ${label}: Kalshi takes no new orders.`,
      `Only contracts that pay are redeemed, at their payout (${label}): quote {market_id, side: "${paying.join('" or "')}", action: "sell", shares} for the contracts you hold; contracts that pay nothing can simply be left in the wallet.`,
      'market',
    );
  }
  if (market.status !== 'active')
    return refusal(
      'market_closed',
      `This market is ${market.status}: Kalshi takes no new orders.`,
      market.status === 'closed'
        ? 'Wait for Kalshi to finalize the result; the winning side can then be redeemed with a sell quote.'
        : 'Pick an active market.',
      'market',
    );
  return { ticker: market.venueRef.externalId, redemption: false };
}

// Read, not cached: whether the market still trades or now redeems (resolved) decides the order.
/** The quote and the signed submit read the registered wallet's proof (the venue's own model). */
type SignedTradeDeps = VenueTradingDeps & { models: SolanaWalletProofModels };

const loadMarket = (deps: VenueTradingDeps, id: string) =>
  isServiceMarketId(id) ? deps.models.Market.findById(id).lean() : Promise.resolve(null);

/** USDC base units of a buy (2 decimals) or contract base units of a sell (5 decimals). */
const buyMicro = (amount: number) => Math.round(amount * 100) * 10_000;
const sellMicro = (shares: number) => Math.round(shares * 1e5) * 10;

/**
 * The traded outcome's price, USDC per contract: the side's ask (buys) or bid (sells) as DFlow
 * shows it, else what the order implies (a buy's inAmount is its most, refund included).
 */
function orderPrice(
  market: DflowMarket,
  order: Pick<DflowOrder, 'inAmount' | 'outAmount'>,
  side: 'yes' | 'no',
  action: 'buy' | 'sell',
): number {
  const quoted =
    action === 'buy'
      ? side === 'yes'
        ? market.yesAsk
        : market.noAsk
      : side === 'yes'
        ? market.yesBid
        : market.noBid;
  const [inA, outA] = [Number(order.inAmount), Number(order.outAmount)];
  const p = quoted ? Number(quoted) : action === 'buy' ? inA / Math.max(outA, 1) : outA / Math.max(inA, 1);
  return Math.round(p * 1e6) / 1e6;
}

/** DFlow's order for a market side: mints from the metadata, then `/order`; refusals as Refusal. */
async function dflowOrder(
  deps: VenueTradingDeps,
  ticker: string,
  side: 'yes' | 'no',
  action: 'buy' | 'sell',
  amount: bigint,
  wallet: string | null,
  redemption = false,
): Promise<{ order: DflowOrder; inputMint: string; outputMint: string; price: number } | Refusal> {
  const dflow = dflowTrading(deps);
  try {
    const market = await dflow.market(ticker);
    const rail = market?.accounts[USDC_MINT];
    if (!rail)
      return refusal(
        'market_not_on_venue',
        `DFlow has no USDC market for ${ticker} yet.`,
        'Try again later, or pick another market.',
        'market',
      );
    const outcome = side === 'yes' ? rail.yesMint : rail.noMint;
    const [inputMint, outputMint] = action === 'buy' ? [USDC_MINT, outcome] : [outcome, USDC_MINT];
    const order = await dflow.order({
      inputMint,
      outputMint,
      amount,
      ...(wallet ? { userPublicKey: wallet } : {}),
    });
    // A redemption pays what the order says (the market has no book any more): $1, or the scalar payout.
    const price = redemption
      ? Math.round((Number(order.outAmount) / Math.max(Number(order.inAmount), 1)) * 1e6) / 1e6
      : orderPrice(market!, order, side, action);
    return { order, inputMint, outputMint, price };
  } catch (err) {
    const refused = dflowRefusal(err);
    if (refused) return orderRefusal(refused.code, refused.msg, wallet ?? '', refused.deepLink);
    if (err instanceof VenueHttpError) throw venueUnavailable(err);
    throw err;
  }
}

const quoteRefusal = (r: Refusal, extra: Partial<KalshiQuoteResult> = {}): KalshiQuoteResult => ({
  success: false,
  quote_id: null,
  transaction: null,
  in_amount: null,
  out_amount: null,
  price: null,
  expires_at: null,
  wallet_address: null,
  wallet_ownership_verified: null,
  error: r.error,
  error_code: r.errorCode,
  hint: r.hint ?? null,
  fix: r.hint ?? null,
  ...extra,
});

/**
 * `POST /api/sdk/trade/kalshi/quote`: checks the account (claim, kill switch, real trading, per-trade
 * cap), the market, the registered wallet and, on buys, DFlow Proof KYC and a USDC account; then asks
 * DFlow for the order with the wallet as signer and keeps the quote (quote_id) for the submit.
 */
export async function quoteKalshiTrade(
  deps: SignedTradeDeps,
  quotes: KalshiQuoteModel,
  agent: AgentRecord,
  req: KalshiQuoteRequest,
): Promise<KalshiQuoteResult> {
  requireClaimed({ deps, agent });
  const amountMicro = req.action === 'buy' ? buyMicro(req.amount) : 0;
  const sharesMicro = req.action === 'sell' ? sellMicro(req.shares) : 0;
  const guard = await loadGuard(deps, agent);
  const standing = checkStanding(
    guard,
    guardedTrade({ marketId: req.market_id, side: req.side, action: req.action, amountMicro }, 'kalshi'),
  );
  if (standing) return quoteRefusal(standing);
  if (amountMicro + sharesMicro <= 0)
    return quoteRefusal(
      refusal(
        'invalid_amount',
        req.action === 'buy'
          ? 'amount is required for a buy (USDC, at least 0.01).'
          : 'shares is required for a sell.',
        req.action === 'buy' ? 'Send amount > 0 (and shares 0).' : 'Send shares > 0.',
        'agent',
      ),
    );
  const market = await loadMarket(deps, req.market_id);
  const ticker = kalshiTicker(market, req);
  if ('errorCode' in ticker) return quoteRefusal(ticker);

  const registered = await solanaWalletOf(deps, guard.owner);
  if (!registered) return quoteRefusal(NO_WALLET);
  const wallet = await signingWallet(deps, agent._id, market!._id, req.action, registered);
  if ('errorCode' in wallet) return quoteRefusal(wallet);
  if (req.wallet_address && req.wallet_address !== wallet.address) return quoteRefusal(mismatchOf(wallet));
  const walletFields = {
    wallet_address: wallet.address,
    wallet_ownership_verified: wallet.holder ? null : wallet.proven,
  };

  const dflow = dflowTrading(deps);
  if (req.action === 'buy') {
    try {
      if (!(await dflow.verified(wallet.address)))
        return quoteRefusal(kycRequired(wallet.address, null), walletFields);
      if (!(await dflow.hasUsdcAccount(wallet.address)))
        return quoteRefusal(NO_USDC_ACCOUNT(wallet.address), walletFields);
    } catch (err) {
      if (err instanceof VenueHttpError) throw venueUnavailable(err);
      throw err;
    }
  }
  const made = await dflowOrder(
    deps,
    ticker.ticker,
    req.side,
    req.action,
    BigInt(amountMicro || sharesMicro),
    wallet.address,
    ticker.redemption,
  );
  if ('errorCode' in made) return quoteRefusal(made, walletFields);
  const { order } = made;
  const tx = order.transaction ? parseWireTransaction(order.transaction) : null;
  if (!tx || tx.signers[0] !== wallet.address)
    throw venueUnavailable(
      new VenueHttpError({
        kind: 'schema',
        venue: 'dflow',
        endpoint: 'dflow.order',
        message: 'no transaction for the wallet in the order',
        retryable: true,
      }),
    );
  const now = deps.clock();
  const quote = await quotes.create({
    _id: randomUUID(),
    agentId: agent._id,
    marketId: market!._id,
    ticker: ticker.ticker,
    side: req.side,
    action: req.action,
    wallet: wallet.address,
    amountMicro,
    sharesMicro,
    inputMint: made.inputMint,
    outputMint: made.outputMint,
    inAmount: order.inAmount,
    outAmount: order.outAmount,
    price: made.price,
    lastValidBlockHeight: order.lastValidBlockHeight ?? null,
    messageDigest: messageDigest(tx.message),
    expiresAt: new Date(now.getTime() + QUOTE_TTL_SECONDS * 1000),
  });
  return {
    success: true,
    quote_id: quote._id,
    transaction: order.transaction!,
    in_amount: Number(order.inAmount) / 1e6,
    out_amount: Number(order.outAmount) / 1e6,
    price: quote.price,
    expires_at: quote.expiresAt.toISOString(),
    ...walletFields,
    error: null,
    error_code: null,
    hint:
      wallet.proven || wallet.holder
        ? null
        : `Your wallet is registered without proof of ownership. ${PROVE_OWNERSHIP_HINT}`,
    fix: null,
  };
}

/** A trade's id from its transaction's signature: the same signed transaction is the same trade. */
export const kalshiTradeId = (signature: string) => {
  const h = createHash('sha256').update(`kalshi:${signature}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** The venue order a submit records: the signed transaction, its signature (the order id) and the quote's terms. */
export function kalshiVenueOrder(quote: KalshiQuoteRecord, tx: WireTransaction, base64: string): VenueOrder {
  const signed: KalshiSigned = {
    transaction: base64,
    quoteId: quote._id,
    wallet: quote.wallet,
    lastValidBlockHeight: quote.lastValidBlockHeight,
    inputMint: quote.inputMint,
    outputMint: quote.outputMint,
  };
  return {
    orderId: transactionId(tx),
    signed,
    orderType: 'async',
    signer: 'external',
    tokenId: quote.action === 'buy' ? quote.outputMint : quote.inputMint,
    negRisk: false,
    tickSize: 0.01,
    price: quote.price,
    status: null,
    matchedSharesMicro: 0,
    matchedAmountMicro: 0,
    syncedAt: null,
  };
}

/** The answer of a trade already recorded for this signed transaction (a replayed submit). */
async function replay(
  deps: VenueTradingDeps,
  t: TradeRecord,
  shape: TradeShape,
  market: MarketRecord,
): Promise<TradeResult> {
  if (FINAL_TRADE_STATUSES.includes(t.status) && t.result) return t.result as TradeResult;
  return submittedResult({ ...shape, id: t._id }, market, {
    balanceMicro: 0,
    sharesYesMicro: 0,
    sharesNoMicro: 0,
  });
}

/**
 * `POST /api/sdk/trade/kalshi/submit`: the signed transaction must be the quoted one (same message
 * bytes, by digest), from the registered wallet, with every signature valid; then the trade is
 * recorded under an id derived from the transaction's signature (a replay is the same trade), the
 * account's safeguards admit it, and the `trades` queue relays and follows it.
 */
export async function submitKalshiTrade(
  deps: SignedTradeDeps,
  quotes: KalshiQuoteModel,
  agent: AgentRecord,
  req: KalshiSubmitRequest,
): Promise<TradeResult> {
  const r = await submitOnce(deps, quotes, agent, req);
  // A refusal says what to do instead as `fix` too, as the quote's refusals do.
  return !r.success && r.hint && r.fix === undefined ? { ...r, fix: r.hint } : r;
}

async function submitOnce(
  deps: SignedTradeDeps,
  quotes: KalshiQuoteModel,
  agent: AgentRecord,
  req: KalshiSubmitRequest,
): Promise<TradeResult> {
  requireClaimed({ deps, agent });
  const shapeBase: TradeShape = {
    id: null,
    marketId: req.market_id,
    venue: 'kalshi',
    side: req.side,
    action: req.action,
    amountMicro: 0,
    sharesMicro: 0,
    warnings: [],
  };
  const holdings = { balanceMicro: agent.balanceMicro, sharesYesMicro: 0, sharesNoMicro: 0 };
  const market = await loadMarket(deps, req.market_id);
  const shown = market ?? ({ feeRateBps: 0, currentPrice: 0 } as MarketRecord);
  const refuse = (r: Refusal, shape = shapeBase) => refusedResult(shape, shown, r, holdings, false);

  const tx = parseWireTransaction(req.signed_transaction);
  if (!tx)
    return refuse(
      refusal(
        'transaction_invalid',
        'signed_transaction is not a Solana transaction (base64 of a signed VersionedTransaction).',
        'Sign the quote’s transaction locally (VersionedTransaction.deserialize → sign → serialize) and send it base64-encoded.',
        'agent',
      ),
    );
  const tradeId = kalshiTradeId(transactionId(tx));
  const earlier = await deps.models.Trade.findById(tradeId).lean();
  if (earlier && earlier.agentId === agent._id) return replay(deps, earlier, shapeBase, shown);

  const quote = await quotes.findById(req.quote_id).lean();
  if (!quote || quote.agentId !== agent._id || quote.expiresAt.getTime() <= deps.clock().getTime())
    return refuse(QUOTE_GONE);
  const shape: TradeShape = { ...shapeBase, amountMicro: quote.amountMicro, sharesMicro: quote.sharesMicro };
  if (quote.marketId !== req.market_id || quote.side !== req.side || quote.action !== req.action)
    return refuse(
      refusal(
        'quote_mismatch',
        `The quote was for ${quote.action} ${quote.side} on market ${quote.marketId}, not ${req.action} ${req.side} on ${req.market_id}.`,
        'Submit with the market_id, side and action of the quote, or get a quote for this trade.',
        'agent',
      ),
      shape,
    );
  const ticker = kalshiTicker(market, req);
  if ('errorCode' in ticker) return refuse(ticker, shape);
  const guard = await loadGuard(deps, agent);
  const registered = await solanaWalletOf(deps, guard.owner);
  if (!registered) return refuse(NO_WALLET, shape);
  const wallet = await signingWallet(deps, agent._id, quote.marketId, quote.action, registered);
  if ('errorCode' in wallet) return refuse(wallet, shape);
  if (wallet.address !== quote.wallet || tx.signers[0] !== wallet.address)
    return refuse(mismatchOf(wallet), shape);
  if (messageDigest(tx.message) !== quote.messageDigest)
    return refuse(
      refusal(
        'transaction_mismatch',
        'The signed transaction is not the quoted one: its message was changed after the quote.',
        'Sign the quote’s transaction exactly as returned (only add your signature), or get a new quote.',
        'agent',
      ),
      shape,
    );
  if (!allSigned(tx))
    return refuse(
      refusal(
        'signature_invalid',
        'Transaction did not pass signature verification',
        `Sign the transaction's versioned message bytes with the key of ${wallet.address} (upgrade your client if it signs another encoding), then submit it again.`,
        'agent',
      ),
      shape,
    );

  const tradeReq = {
    market_id: req.market_id,
    side: req.side,
    action: req.action,
    order_type: null,
    price: null,
    reasoning: req.reasoning ?? null,
    source: req.source ?? null,
    skill_slug: req.skill_slug ?? null,
    signal_data: null,
    idempotency_key: null,
  } as unknown as TradeRequest;
  try {
    return await recordAndRun({
      deps,
      agent,
      req: tradeReq,
      shape,
      holdings,
      market: market!,
      fresh: async () => (await deps.models.Market.findById(market!._id).lean()) ?? market!,
      guard,
      tradeId,
      fields: { venueOrder: kalshiVenueOrder(quote, tx, req.signed_transaction), orderType: 'async' },
    });
  } catch (err) {
    // The same transaction submitted twice at once: the first one recorded it.
    if (!isDuplicateKey(err)) throw err;
    const first = await deps.models.Trade.findById(tradeId).lean();
    if (!first) throw err;
    return replay(deps, first, shape, shown);
  }
}

/**
 * `POST /api/sdk/trade` with venue kalshi: a dry run prices the order from DFlow (no wallet, no KYC);
 * a live trade is refused, since only the agent's wallet can sign it: quote, sign, submit.
 */
export async function tradeKalshiVenue(trade: VenueTrade): Promise<TradeResult> {
  const { deps, req, shape, holdings } = trade;
  const market = await loadMarket(deps, req.market_id);
  const shown = market ?? ({ feeRateBps: 0, currentPrice: 0 } as MarketRecord);
  if (!req.dry_run) {
    const fix =
      'Kalshi orders are signed by your Solana wallet: POST /api/sdk/trade/kalshi/quote {market_id, side, action, amount|shares, wallet_address}, sign its transaction locally, then POST /api/sdk/trade/kalshi/submit {market_id, side, action, signed_transaction, quote_id}.';
    return {
      ...refusedResult(
        shape,
        shown,
        refusal(
          'use_kalshi_quote_submit',
          'Kalshi trades go through quote and submit, not /api/sdk/trade.',
          fix,
          'agent',
        ),
        holdings,
        false,
      ),
      fix,
    };
  }
  const ticker = kalshiTicker(market, req);
  if ('errorCode' in ticker) return refusedResult(shape, shown, ticker, holdings, true);
  const amount = BigInt(req.action === 'buy' ? shape.amountMicro : shape.sharesMicro);
  if (amount <= 0n)
    return refusedResult(
      shape,
      shown,
      refusal(
        'invalid_amount',
        'Nothing to price: amount (buys) or shares (sells) must be above 0.',
        'Send amount or shares.',
        'agent',
      ),
      holdings,
      true,
    );
  const made = await dflowOrder(deps, ticker.ticker, req.side, req.action, amount, null, ticker.redemption);
  if ('errorCode' in made) return refusedResult(shape, shown, made, holdings, true);
  const { order } = made;
  const [inA, outA] = [Number(order.inAmount), Number(order.outAmount)];
  return venueOrderResult(
    shape,
    shown,
    {
      sharesMicro: req.action === 'buy' ? outA : inA,
      amountMicro: req.action === 'buy' ? inA : outA,
      price: made.price,
      orderStatus: 'matched',
      fillStatus: 'filled',
      orderId: null,
    },
    holdings,
    true,
  );
}

/** `GET /api/proof/status?wallet=`: DFlow Proof's word on the wallet (kalshi.md §2.8). */
export async function kalshiSignerStatus(
  deps: VenueTradingDeps,
  wallet: string,
): Promise<SignerIdentityStatus> {
  const address = solanaWalletAddress(wallet);
  return {
    wallet: address,
    verified: await dflowTrading(deps).verified(address),
    verify_url: proofVerifyUrl(address),
  };
}
