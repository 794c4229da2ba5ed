import type { ShockSignalRecord } from './shock-signal.model.js';

/**
 * A shock signal as the shock-ladder skill reads it from `GET /api/sdk/reactor/pending`
 * (client-contract §12.1) and as the Reactor event stream sends it (`event: shock_ladder`).
 * Prices are of `side`'s outcome; depths in cents below `pre_price`.
 */
export function shockSignalView(s: ShockSignalRecord) {
  return {
    type: 'shock_ladder' as const,
    signal_id: s.signalId,
    shock_id: s.shockId,
    market_id: s.marketId,
    side: s.side,
    pre_price: s.prePrice,
    shock_price: s.shockPrice,
    bucket_key: s.bucketKey,
    percentile_depths: { p50: s.depths.p50, p75: s.depths.p75, p90: s.depths.p90, p95: s.depths.p95 },
    depth_source: s.depthSource,
    observed_count: s.observedCount,
    ts: s.createdAt.getTime() / 1000,
    created_at: s.createdAt.toISOString(),
    expires_at: s.expiresAt.toISOString(),
  };
}
