import { isDuplicateKey } from '../refusal.js';
import type { Models } from '../models.js';

export const SNAPSHOT_MINUTES = 15;

/**
 * Records the price of every active market that moved in the slot (traded, or carries a venue
 * price) at the slot's end. Idempotent per slot: the point id is market + slot.
 */
export async function snapshotPrices(models: Models, slotEnd: Date): Promise<{ recorded: number }> {
  const slotStart = new Date(slotEnd.getTime() - SNAPSHOT_MINUTES * 60_000);
  const markets = await models.Market.find(
    { status: 'active', $or: [{ lastTradeAt: { $gte: slotStart } }, { externalPriceYes: { $ne: null } }] },
    { currentPrice: 1 },
  ).lean();
  if (!markets.length) return { recorded: 0 };
  const slot = slotEnd.toISOString().slice(0, 16);
  try {
    await models.PricePoint.collection.insertMany(
      markets.map(
        (m) => ({ _id: `${m._id}-${slot}`, marketId: m._id, at: slotEnd, priceYes: m.currentPrice }) as never,
      ),
      { ordered: false },
    );
  } catch (err) {
    if (!isDuplicateKey(err)) throw err; // a replayed slot: the points are already there
  }
  return { recorded: markets.length };
}
