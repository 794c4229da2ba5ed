import type { Models } from '../models.js';

/**
 * Keeps `volume_24h` a rolling 24-hour figure. Fills add to it at once (market-log.ts); this job,
 * run every few minutes, lets old fills age out: volume = the market's outside 24 h volume + the
 * amount of its fills in the last 24 hours. Only markets with recent fills, or whose figure
 * differs from their outside volume, are touched. A fill landing during a run is corrected by the
 * next run.
 */
export async function refreshVolumes(models: Models, now: Date): Promise<{ updated: number }> {
  const since = new Date(now.getTime() - 24 * 3600_000);
  const traded = await models.MarketEvent.aggregate<{ _id: string; total: number }>([
    { $match: { kind: 'fill', at: { $gte: since } } },
    { $group: { _id: '$marketId', total: { $sum: '$amountMicro' } } },
  ]);
  const byMarket = new Map(traded.map((t) => [t._id, t.total]));
  const stale = await models.Market.find(
    {
      $or: [
        { _id: { $in: [...byMarket.keys()] } },
        { lastTradeAt: { $gte: new Date(since.getTime() - 24 * 3600_000) } },
      ],
    },
    { volume24hMicro: 1, baseVolume24hMicro: 1 },
  ).lean();
  const ops = stale
    .map((m) => ({ m, volume: (m.baseVolume24hMicro ?? 0) + (byMarket.get(m._id) ?? 0) }))
    .filter(({ m, volume }) => volume !== m.volume24hMicro)
    .map(({ m, volume }) => ({
      updateOne: { filter: { _id: m._id }, update: { $set: { volume24hMicro: volume } } },
    }));
  if (ops.length) await models.Market.bulkWrite(ops, { ordered: false });
  return { updated: ops.length };
}
