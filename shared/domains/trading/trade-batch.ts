import type { TradeAnswer, TradeExecutionContext } from './venue-trading.js';
import { executeTrade } from './execute-trade.js';
import { claimTrades } from './trade-lifecycle.js';
import type { TradeRecord } from './trade.model.js';

/**
 * Executes the trades `tradeIds` (jobs a worker has in hand) and answers each. They are claimed
 * together; a venue that runs many trades at once (`executeClaimed`, the sim engine's group commit)
 * gets its claimed trades together, every other trade runs alone. A trade not claimed here (taken,
 * finished, stopped, or an `executing` one to resume) and one a venue left unanswered run alone too:
 * `executeTrade` answers or resumes each.
 */
export async function executeTradeBatch(
  ctx: TradeExecutionContext,
  tradeIds: string[],
): Promise<Map<string, TradeAnswer>> {
  const answers = new Map<string, TradeAnswer>();
  let claimed: TradeRecord[];
  try {
    claimed = await claimTrades(ctx.models, tradeIds, ctx.now());
  } catch (error) {
    for (const id of tradeIds) answers.set(id, { error });
    return answers;
  }
  // Claimed here and not yet begun: first runs, in the order the jobs came.
  const firstRuns = new Map(claimed.map((t) => [t._id, t]));
  const byVenue = new Map<TradeRecord['venue'], TradeRecord[]>();
  for (const id of tradeIds) {
    const t = firstRuns.get(id);
    if (t) byVenue.set(t.venue, [...(byVenue.get(t.venue) ?? []), t]);
  }
  for (const [venue, trades] of byVenue) {
    // A venue this process does not trade on answers each of its trades alone, with its own error.
    const venueTrading = ctx.venues.all().find((v) => v.venue === venue);
    if (!venueTrading?.executeClaimed) continue;
    for (const t of trades) firstRuns.delete(t._id);
    try {
      for (const [id, answer] of await venueTrading.executeClaimed(ctx, trades)) answers.set(id, answer);
    } catch (error) {
      for (const t of trades) answers.set(t._id, { error });
    }
  }
  for (const id of tradeIds) {
    if (answers.has(id)) continue;
    try {
      answers.set(id, { result: await executeTrade(ctx, id, firstRuns.get(id)) });
    } catch (error) {
      answers.set(id, { error });
    }
  }
  return answers;
}
