import { fromMicro } from '../money.js';
import type { ReactorSignalRecord } from './reactor-signal.model.js';

/**
 * What the clients read of a signal (client-contract §12.1): the copytrading skill's pending signal
 * (`pendingView`), the reactor MCP client's `reactor_event` (`eventView`).
 */
export function pendingView(s: ReactorSignalRecord) {
  return {
    signal_id: s.signalId,
    type: 'copytrade' as const,
    tx_hash: s.txHash,
    market_id: s.marketId,
    side: s.side,
    action: s.action,
    amount: fromMicro(s.amountMicro),
    venue: s.venue,
    leg: s.leg,
    created_at: s.createdAt.toISOString(),
    expires_at: s.expiresAt.toISOString(),
    whale: {
      wallet: s.whale.wallet,
      label: s.whale.label,
      side: s.whale.side,
      token: s.whale.tokenId,
      price: s.whale.price,
      size: fromMicro(s.whale.sharesMicro),
      condition_id: s.whale.conditionId,
      market_title: s.whale.marketTitle,
      market_slug: s.whale.marketSlug,
      outcome: s.whale.outcome,
    },
  };
}

/** The `reactor_event` data of a signal: the whale's trade, as the MCP client buffers and shows it. */
export function eventView(s: ReactorSignalRecord) {
  return {
    whale_wallet: s.whale.wallet,
    side: s.whale.side,
    size: fromMicro(s.whale.sharesMicro),
    price: s.whale.price,
    market_title: s.whale.marketTitle,
    market_slug: s.whale.marketSlug,
    whale_label: s.whale.label,
    signal_id: s.signalId,
    market_id: s.marketId,
    outcome: s.whale.outcome,
    tx_hash: s.txHash,
    venue: s.venue,
    /** `maker` events are for clients that announce `caps=maker`. */
    leg: s.leg,
    action: s.action,
    amount: fromMicro(s.amountMicro),
    created_at: s.createdAt.toISOString(),
  };
}

/** The `reactor_withdrawn` data: the signal a reorg took back (its fill never settled). */
export function withdrawalView(s: ReactorSignalRecord) {
  return {
    signal_id: s.signalId,
    tx_hash: s.txHash,
    market_id: s.marketId,
    whale_wallet: s.whale.wallet,
    leg: s.leg,
    withdrawn_at: s.withdrawnAt?.toISOString() ?? null,
  };
}
