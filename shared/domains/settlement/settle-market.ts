import { AppError } from '../../infra/errors.js';
import { appendLedgerEntry, rollForwardAgent } from '../ledger/ledger.js';
import type { Models } from '../models.js';
import { holdingPayoutMicro, yesPayoutMicro } from '../markets/resolution.js';
import { accept } from '../refusal.js';
import { POOL_VENUE } from '../venues/venue-id.js';

/**
 * Pays a resolved sim market: each winning share pays 1 $SIM, losing shares 0, and at a void
 * (50-50) resolution every share pays 0.5 (resolution.ts: what a YES and a NO share pay, rounded
 * down to the micro-unit per side); the position closes
 * with its realised P&L and the agent's win/loss count moves. One ledger entry per position, keyed
 * `settle-<positionId>`, so running settlement twice pays once. Waits (by failing retryably) while
 * trades on the market are still in flight, so no fill lands after its position was settled.
 */
export async function settleMarket(
  models: Models,
  marketId: string,
  now: () => Date,
): Promise<{ positions: number; payoutMicro: number }> {
  const market = await models.Market.findById(marketId, { status: 1, outcome: 1, payoutYesMicro: 1 }).lean();
  if (!market)
    throw new AppError(404, 'market_not_found', `Market ${marketId} not found`, 'Nothing to settle.', {
      retryable: false,
    });
  const payoutYesMicro = yesPayoutMicro(market);
  if (payoutYesMicro === null) {
    throw new AppError(
      409,
      'market_not_resolved',
      `Market ${marketId} is not resolved`,
      'Resolve it first.',
      { retryable: false },
    );
  }
  const inFlight = await models.Trade.countDocuments({ marketId, status: { $in: ['pending', 'executing'] } });
  if (inFlight > 0)
    throw new AppError(
      503,
      'trades_in_flight',
      `${inFlight} trade(s) on market ${marketId} still in flight`,
      'Settlement retries shortly.',
      { retryable: true },
    );

  const positions = await models.Position.find(
    { marketId, venue: POOL_VENUE, status: { $ne: 'settled' } },
    { _id: 1, agentId: 1 },
  ).lean();
  let payoutMicro = 0;
  for (const p of positions) {
    const target = { marketId, venue: POOL_VENUE, positionId: p._id };
    const result = await appendLedgerEntry(
      models,
      p.agentId,
      `settle-${p._id}`,
      target,
      ({ position }) => {
        if (!position) throw new Error(`position ${p._id} vanished`);
        if (position.reservedYesMicro || position.reservedNoMicro) {
          throw new AppError(
            503,
            'sells_in_flight',
            `Position ${p._id} has sells in flight`,
            'Settlement retries shortly.',
            { retryable: true },
          );
        }
        const payout = holdingPayoutMicro(position, payoutYesMicro);
        const realized = payout - position.costYesMicro - position.costNoMicro;
        const lifetime = position.realizedPnlMicro + realized;
        const traded =
          position.sharesYesMicro + position.sharesNoMicro > 0 || position.realizedPnlMicro !== 0;
        return accept({
          kind: 'settle',
          agent: {
            balanceMicro: payout,
            realizedPnlMicro: realized,
            winCount: traded && lifetime > 0 ? 1 : 0,
            lossCount: traded && lifetime <= 0 ? 1 : 0,
          },
          position: {
            sharesYesMicro: -position.sharesYesMicro,
            sharesNoMicro: -position.sharesNoMicro,
            costYesMicro: -position.costYesMicro,
            costNoMicro: -position.costNoMicro,
            realizedPnlMicro: realized,
            payoutMicro: payout,
            statusAfter: 'settled' as const,
          },
        });
      },
      now,
    );
    payoutMicro += result.entry?.position?.payoutMicro ?? 0;
  }
  // A run killed between a payout's position and agent writes left that agent one entry behind, and
  // its position, already settled, is not visited again: bring every holder's projection up to date.
  const holders = await models.Position.distinct('agentId', { marketId, venue: POOL_VENUE });
  for (const agentId of holders) await rollForwardAgent(models, agentId as string);
  // Every position is paid: the market needs no more settlement runs (see ensureSettlement).
  await models.Market.updateOne({ _id: marketId, settledAt: null }, { $set: { settledAt: now() } });
  return { positions: positions.length, payoutMicro };
}
