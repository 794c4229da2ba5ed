import { VenueHttpError } from '../../../infra/http/venue-http-error.js';
import { fromMicro } from '../../money.js';
import { refusalOf, type Refusal } from '../../refusal.js';
import { checkStanding, guardedTrade, loadGuard } from '../../limits/trade-guard.js';
import type { MarketRecord } from '../../markets/market.model.js';
import { isServiceMarketId } from '../external-ids.js';
import { checkSignedOrder, SignedOrderInputSchema } from './orders/signed-order.js';
import { venueUnavailable } from '../venue-unavailable.js';
import { venueKey } from '../../markets/venue-key.js';
import { agentWalletForTrade } from '../../wallets/agent-wallets.js';
import { hasClobCredentials } from './clob-credentials.js';
import type { ClobCredentialModels } from './clob-credential.model.js';
import { walletOf } from '../../wallets/managed-wallet.js';
import { positionId } from '../../positions/position.model.js';
import { otherWalletRefusal, walletNamed, withKnownHolder } from '../../trading/holding-wallet.js';
import { recordAndRun } from '../../trading/record-and-run.js';
import { bookQuoteResult, MARKET_NOT_FOUND, NO_MARKET, refusedResult } from '../../trading/trade-result.js';
import type { VenueOrder } from '../../trading/trade.model.js';
import type { TradeResult } from '../../trading/trade.schemas.js';
import type { VenueTrade } from '../../trading/venue-trading.js';

const refusal = refusalOf;

/** A trade with the CLOB credentials' model beside the domains' (the venue's trading holds it). */
export type PolymarketTrade = VenueTrade & { deps: { models: ClobCredentialModels } };

/** The token of the traded outcome, or why this market cannot be traded on Polymarket. */
function polymarketToken(market: MarketRecord | null, side: 'yes' | 'no'): { tokenId: string } | Refusal {
  if (!market) return MARKET_NOT_FOUND;
  const tokenId = side === 'yes' ? market.venueRef?.yesTokenId : market.venueRef?.noTokenId;
  if (market.importSource !== 'polymarket' || !market.venueRef?.externalId || !tokenId)
    return refusal(
      'market_not_on_venue',
      'This market is not a Polymarket market: it trades on sim only.',
      'Import the Polymarket market (POST /api/sdk/markets/import with its URL) and trade its market_id.',
      'market',
    );
  if (market.status !== 'active')
    return refusal(
      'market_closed',
      `This market is ${market.status}: the venue takes no new orders.`,
      'Pick an active market.',
      'market',
    );
  return { tokenId };
}

/**
 * A trade on Polymarket (client-contract §4.1–4.2). A dry run prices the order on the live book
 * and sends nothing. A live trade needs a claimed agent, real trading switched on, a linked wallet
 * and, for an external wallet, a `signed_order` that is exactly this trade, signed by that wallet;
 * a managed wallet's order is signed by the service in the worker. The order is recorded with the
 * trade and relayed by the worker (execute-venue-order.ts) under the owner's CLOB credentials.
 * A `wallet_address` of the agent's own wallet (Elite) routes the order through it instead: the
 * service signs with that wallet's key, under its credentials. An open position is traded from the
 * wallet holding it (holding-wallet.ts): a sale goes there by itself, another wallet is refused; one
 * recorded without its holder is given it first, and refused while it stays unknown.
 */
export async function submitPolymarketTrade(trade: PolymarketTrade): Promise<TradeResult> {
  const { deps, agent, req, shape, holdings } = trade;
  const { models } = deps;
  // The account's safeguards answer before anything about the market or the wallet (they take nothing).
  const guard = req.dry_run ? null : await loadGuard(deps, agent);
  const standing = guard && checkStanding(guard, guardedTrade(shape, 'polymarket'));
  if (standing) return refusedResult(shape, NO_MARKET, standing, holdings, false);
  const market = isServiceMarketId(req.market_id)
    ? await deps.caches.markets.getOrLoad(req.market_id, () => models.Market.findById(req.market_id).lean())
    : null;
  const fresh = async () => (market && (await models.Market.findById(market._id).lean())) ?? market!;
  const token = polymarketToken(market, req.side);
  if ('errorCode' in token) return refusedResult(shape, market ?? NO_MARKET, token, holdings, req.dry_run);
  const m = market!;

  // The book, walked for this size: a dry run's answer, and a managed market order's limit price
  // (read only then: an order that needs no book is not held up by it).
  const quote = async () => {
    try {
      return await deps.venues.get('polymarket').executableQuote(venueKey(m), {
        outcome: req.side,
        action: req.action,
        amount: req.action === 'buy' ? fromMicro(shape.amountMicro) : undefined,
        shares: req.action === 'sell' ? fromMicro(shape.sharesMicro) : undefined,
      });
    } catch (err) {
      if (err instanceof VenueHttpError) throw venueUnavailable(err);
      throw err;
    }
  };
  if (req.dry_run) return quotedResult(trade, m, await quote());

  const owner = guard!.owner;
  const [wallet, recorded] = await Promise.all([
    walletOf(deps, owner),
    models.Position.findById(positionId(agent._id, m._id, 'polymarket')).lean(),
  ]);
  const position = await withKnownHolder(deps, recorded);
  if (position && 'errorCode' in position) return refusedResult(shape, m, position, holdings, false);
  // `wallet_address` (or, for a sale, the wallet holding the position) routes the order through the
  // agent's own wallet; the account's wallet needs no routing.
  const named = walletNamed(req, position);
  const accountWallet = [wallet?.address, wallet?.maker].map((a) => a?.toLowerCase());
  const routing =
    named && !accountWallet.includes(named.trim().toLowerCase())
      ? await agentWalletForTrade(models, agent._id, named)
      : null;
  // A sale sent to its holder by itself, when that is no wallet of this agent or account (a wallet
  // linked before): not routed, and otherWalletRefusal below names the wallet holding it.
  const routed = routing && 'errorCode' in routing && !req.wallet_address ? null : routing;
  if (routed && 'errorCode' in routed) return refusedResult(shape, m, routed, holdings, false);
  if (!wallet && !routed)
    return refusedResult(
      shape,
      m,
      refusal(
        'wallet_not_linked',
        'No Polymarket wallet is linked to this account.',
        'Link one: GET /api/sdk/wallet/link/challenge?address=<0x…>, sign its message, POST /api/sdk/wallet/link; or ask your human for a managed wallet.',
      ),
      holdings,
      false,
    );
  const otherWallet = otherWalletRefusal(position, routed?.address ?? wallet!.maker);
  if (otherWallet) return refusedResult(shape, m, otherWallet, holdings, false);
  const orderType = req.order_type ?? (req.action === 'buy' ? 'FAK' : 'GTC');
  const negRisk = m.venueRef?.negRisk === true;
  let venueOrder: VenueOrder;
  if (!routed && wallet!.ownership === 'external') {
    if (!(await hasClobCredentials(deps, { owner })))
      return refusedResult(
        shape,
        m,
        refusal(
          'clob_credentials_missing',
          'No Polymarket CLOB API credentials are registered for the linked wallet.',
          'Derive them with your wallet and register them: POST /api/sdk/wallet/credentials {api_key, api_secret, api_passphrase} (or POST /api/sdk/wallet/credentials/derive-via-proxy).',
        ),
        holdings,
        false,
      );
    const parsed = SignedOrderInputSchema.safeParse(req.signed_order);
    if (!parsed.success)
      return refusedResult(
        shape,
        m,
        refusal(
          req.signed_order ? 'signed_order_invalid' : 'signed_order_required',
          req.signed_order
            ? `signed_order is malformed: ${parsed.error.issues.map((i) => `${i.path.join('.')} ${i.message}`).join('; ')}`
            : 'A trade from an external wallet needs a signed_order (the CLOB order signed by your wallet).',
          'Sign a V2 CLOB order for this market and side locally (the official client does this) and send it as signed_order.',
        ),
        holdings,
        false,
      );
    const checked = checkSignedOrder(parsed.data, {
      tokenId: token.tokenId,
      side: req.action === 'buy' ? 'BUY' : 'SELL',
      amountMicro: shape.amountMicro,
      sharesMicro: shape.sharesMicro,
      limitPrice: req.price ?? null,
      negRisk,
      wallet: wallet!,
    });
    if (!checked.ok) return refusedResult(shape, m, checked.refusal, holdings, false);
    venueOrder = {
      ...emptyOrder(orderType, token.tokenId, negRisk, m.tickSize, checked.value.price),
      signer: 'external',
      orderId: checked.value.orderId,
      signed: checked.value.order,
    };
  } else {
    // An order signed elsewhere is not this wallet's: placing the trade from the managed wallet
    // instead would spend funds the agent did not mean to.
    if (req.signed_order)
      return refusedResult(
        shape,
        m,
        refusal(
          'wallet_mismatch',
          routed
            ? `signed_order was sent, but the agent wallet ${routed.address} is signed by this service.`
            : `signed_order was sent, but this account trades from its managed wallet ${wallet!.address}.`,
          routed
            ? 'Send the trade without signed_order: the service signs it with the agent wallet.'
            : 'Link the wallet that signs (POST /api/sdk/wallet/link), or send the trade without signed_order to use the managed wallet.',
        ),
        holdings,
        false,
      );
    // The service signs in the worker; the limit is the caller's price or the book's level that fills the size.
    const book = req.price == null ? await quote() : null;
    const price = req.price ?? book?.worstPrice ?? null;
    if (price === null || (book && !book.filled && orderType !== 'GTC' && orderType !== 'GTD'))
      return refusedResult(
        shape,
        m,
        refusal(
          'no_liquidity',
          'The order book has no liquidity on this side for this size.',
          'Send a limit price (price) to rest an order, or a smaller size.',
          'price',
        ),
        holdings,
        false,
      );
    venueOrder = {
      ...emptyOrder(orderType, token.tokenId, negRisk, m.tickSize, price),
      signer: routed ? 'agent' : 'managed',
    };
  }
  return recordAndRun({
    deps,
    agent,
    req,
    shape,
    holdings,
    market: m,
    fresh,
    guard: guard!,
    fields: { venueOrder },
  });
}

const emptyOrder = (
  orderType: string,
  tokenId: string,
  negRisk: boolean,
  tickSize: number,
  price: number,
): Omit<VenueOrder, 'signer'> => ({
  orderId: null,
  signed: null,
  orderType,
  tokenId,
  negRisk,
  tickSize,
  price,
  status: null,
  matchedSharesMicro: 0,
  matchedAmountMicro: 0,
  syncedAt: null,
});

/** A dry run on Polymarket: what the live book would fill now, nothing sent. */
function quotedResult(
  { shape, holdings }: VenueTrade,
  market: MarketRecord,
  quote: Awaited<ReturnType<ReturnType<VenueTrade['deps']['venues']['get']>['executableQuote']>>,
): TradeResult {
  if (!quote || quote.shares <= 0)
    return refusedResult(
      shape,
      market,
      refusal(
        'no_liquidity',
        'The order book has no liquidity on this side.',
        'Try a smaller size or a limit order.',
        'price',
      ),
      holdings,
      true,
    );
  return bookQuoteResult(shape, market, quote, holdings);
}
