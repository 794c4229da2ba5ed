import { withinDatabaseDeadline } from '../../infra/database-unavailable.js';
import { GroupRunner } from '../../util/group-runner.js';
import type { TradeAnswer, TradeExecutionContext } from './venue-trading.js';
import { runTrade } from './run-trade.js';
import { claimTrades } from './trade-lifecycle.js';
import type { TradeRecord } from './trade.model.js';
import type { TradeResult } from './trade.schemas.js';

/** A group takes well under a second, and under an outage each of its calls fails within one. */
export const GROUP_DEADLINE_MS = 60_000;

/**
 * The group commit: gathers the trades a worker process has in hand into groups, and runs each
 * group with `executeTradeGroup` (on sim, one pass of the sim engine for all of them): while one
 * group is being written, the trades that arrive wait and go together in the next. Under light
 * load a group is one trade and starts at once; under heavy load the round trips of a group are
 * shared by up to `maxGroup` trades. `waitMs` holds each group open that much longer (0: never);
 * `deadlineMs` bounds each group (GROUP_DEADLINE_MS).
 */
export class TradeGroupCommit {
  private readonly runner: GroupRunner<string, TradeResult>;

  constructor(ctx: TradeExecutionContext, opts: { maxGroup: number; waitMs: number; deadlineMs?: number }) {
    const deadlineMs = opts.deadlineMs ?? GROUP_DEADLINE_MS;
    this.runner = new GroupRunner({
      maxGroup: opts.maxGroup,
      waitMs: opts.waitMs,
      itemName: 'trade',
      // Bounded: a group stuck on a database call that never settles would hold every later
      // trade of this process behind it; its trades' jobs wait and run again instead.
      runGroup: (tradeIds) =>
        withinDatabaseDeadline(
          executeTradeGroup(ctx, tradeIds),
          deadlineMs,
          `a group commit of ${tradeIds.length} trade(s)`,
        ),
    });
  }

  execute(tradeId: string): Promise<TradeResult> {
    return this.runner.run(tradeId);
  }
}

/**
 * Executes the trades `tradeIds` (jobs a worker has in hand) and answers each. They are claimed
 * together; a venue that runs many trades at once (`executeClaimed`, the sim engine's group commit)
 * gets its claimed trades together, every other trade runs alone. A trade not claimed here (taken,
 * finished, stopped, or an `executing` one to resume) and one a venue left unanswered run alone too:
 * `runTrade` answers or resumes each.
 */
export async function executeTradeGroup(
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
      answers.set(id, { result: await runTrade(ctx, id, firstRuns.get(id)) });
    } catch (error) {
      answers.set(id, { error });
    }
  }
  return answers;
}
