import type { SkillUpdate } from '../skills/skills.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { priceAtMinute } from '../markets/history.js';
import { marketView } from '../markets/market-view.js';
import type { Models } from '../models.js';
import { recommendSkills } from '../skills/skills.js';
import { fromMicro } from '../money.js';
import { venueMarkMicro } from '../positions/position-views.js';
import { positionsWithMarkets } from '../positions/with-markets.js';
import { bucket } from '../trading/reads.js';
import { bucketCash, type WalletCash } from '../trading/wallet-cash.js';
import {
  externalVenueIds,
  isPoolVenue,
  listedVenues,
  POOL_VENUE,
  type ExternalVenueId,
  type VenueId,
} from '../venues/venue-id.js';
import { venueMoney } from '../venues/venue-conventions.js';
import { briefingRiskAlerts } from '../monitors/risk-alerts.js';
import { humanDuration } from './context.js';
import { boardStanding } from './board-ranks.js';
import { simBySkill } from './by-skill.js';
import { resolutionLabel } from '../markets/resolution.js';

const BIG_MOVE = 0.1;

export type NewMarket = Awaited<ReturnType<typeof newMarketsSince>>[number];

/** Up to 10 active markets created since `since`, newest first (the same for every agent: cacheable). */
export async function newMarketsSince(models: Models, since: Date, baseUrl: string, now: Date) {
  const rows = await models.Market.find({
    status: 'active',
    analyticsOnly: false,
    createdAt: { $gte: since },
  })
    .sort({ createdAt: -1 })
    .limit(10)
    .lean();
  return rows.map((m) => {
    const v = marketView(m, baseUrl, now);
    return {
      market_id: v.id,
      question: v.question,
      current_probability: v.current_probability,
      volume_24h: v.volume_24h,
      resolves_at: v.resolves_at,
      url: v.url,
      tags: v.tags,
    };
  });
}

const SOON_SECONDS = 24 * 3600;
const r6 = (n: number) => Math.round(n * 1e6) / 1e6;

type Held = Awaited<ReturnType<typeof positionsWithMarkets>>;

/**
 * What a resolved market asks of a holder, per venue: sim pays out by itself, real venues redeem.
 * Worded for any payout: after a 50-50 (void) result both sides pay, so there is no "winning" side.
 */
const RESOLVED_ACTION: Record<VenueId, string> = {
  sim: 'the payout is being settled to your balance.',
  polymarket:
    'redeem the shares that pay out (POST /api/sdk/redeem {market_id, side}, or auto-redeem in GET /api/sdk/agents/me/settings).',
  kalshi:
    'redeem the contracts that pay out ($1 a winning contract, the settlement value after a scalar or 50-50 result): POST /api/sdk/trade/kalshi/quote {market_id, side, action: "sell", shares}, sign, then POST /api/sdk/trade/kalshi/submit.',
};

/**
 * One venue's open positions as the briefing shows them: their value at the venue's price, and the
 * ones that need attention since `since` (resolved, big move, resolving soon) with what to do.
 */
async function venueAttention(
  models: Models,
  venue: VenueId,
  rows: Held,
  opts: { since: Date; now: Date; baseUrl: string },
) {
  const { since, now, baseUrl } = opts;
  const open = rows.filter(
    ({ p }) =>
      p.status !== 'settled' &&
      p.sharesYesMicro + p.sharesNoMicro + p.reservedYesMicro + p.reservedNoMicro > 0,
  );
  let valueMicro = 0;
  let unrealizedMicro = 0;
  const attention = [];
  const actions: string[] = [];
  for (const { p, m } of open) {
    const value = venueMarkMicro(p, m);
    const cost = p.costYesMicro + p.costNoMicro;
    valueMicro += value;
    unrealizedMicro += value - cost;
    const side = p.sharesYesMicro >= p.sharesNoMicro ? 'yes' : 'no';
    // The price at the start of the minute of `since` (shared by every agent holding the market and
    // cached per process): one log read per market and minute rather than per position and request.
    // A move from up to 59 s before `since` counts too; BIG_MOVE is 10 points, so it rarely matters.
    const before = await priceAtMinute(models, m, since);
    const move = m.currentPrice - before;
    const seconds = m.resolvesAt ? (m.resolvesAt.getTime() - now.getTime()) / 1000 : null;
    const reasons: string[] = [];
    if (m.status === 'resolved') reasons.push('resolved');
    else {
      if (Math.abs(move) >= BIG_MOVE) reasons.push('big_move');
      if (seconds !== null && seconds <= SOON_SECONDS) reasons.push('resolving_soon');
    }
    if (!reasons.length) continue;
    attention.push({
      market_id: m._id,
      question: m.question,
      url: marketView(m, baseUrl, now).url,
      side,
      shares: fromMicro(side === 'yes' ? p.sharesYesMicro : p.sharesNoMicro),
      current_price: r6(m.currentPrice),
      pnl: fromMicro(value - cost),
      move_pct: Math.round(move * 1e4) / 100,
      time_to_resolution: seconds === null ? null : humanDuration(seconds),
      reasons,
    });
    if (reasons.includes('resolved'))
      actions.push(`"${m.question}" resolved ${resolutionLabel(m)}: ${RESOLVED_ACTION[venue]}`);
    if (reasons.includes('resolving_soon'))
      actions.push(
        `"${m.question}" resolves in ${humanDuration(seconds!)}: decide whether to hold your ${side.toUpperCase()} shares or sell.`,
      );
    if (reasons.includes('big_move'))
      actions.push(
        `"${m.question}" moved ${Math.round(move * 100)} points since ${since.toISOString()}: re-check your thesis.`,
      );
  }
  return { open, valueMicro, unrealizedMicro, attention, actions };
}

/**
 * A real venue's block: the portfolio's bucket of that venue (its wallet's cash, P&L, count and
 * exposure) with the briefing's extras; null when the agent never held anything there and its
 * owner has no wallet there.
 */
async function externalVenue(
  models: Models,
  venue: ExternalVenueId,
  rows: Held,
  cash: WalletCash | undefined,
  opts: { since: Date; now: Date; baseUrl: string },
) {
  const held = rows.filter(({ p }) => p.venue === venue);
  if (!held.length && !cash) return null;
  const b = { ...bucket(held, 0), ...bucketCash(cash) };
  const { unrealizedMicro, attention, actions } = await venueAttention(models, venue, held, opts);
  return {
    currency: venueMoney(venue).unit,
    ...b,
    realized_pnl: fromMicro(held.reduce((s, { p }) => s + p.realizedPnlMicro, 0)),
    unrealized_pnl: fromMicro(unrealizedMicro),
    positions_needing_attention: attention,
    actions,
  };
}

/**
 * `GET /api/sdk/briefing` (spec §2.4, client-contract §6.5): one call that tells an agent where it
 * stands and what needs attention since `since`.
 */
export async function briefing(
  models: Models,
  agent: AgentRecord,
  opts: {
    since: Date;
    now: Date;
    baseUrl: string;
    newMarkets?: (since: Date) => Promise<NewMarket[]>;
    /** Whether the asking client is behind the latest release (system/version-check.ts). */
    sdkUpdate?: { update_available: boolean; current_version: string | null; latest_version: string | null };
    /** The owner's venue wallets' cash (wallet-cash.ts); none when absent. */
    cash?: Map<VenueId, WalletCash>;
    /** The skills the agent runs that the catalogue has a later version of (skills.ts skillUpdates). */
    skillUpdates?: SkillUpdate[];
  },
) {
  const cash = opts.cash ?? new Map<VenueId, WalletCash>();
  const { since, now, baseUrl } = opts;
  const all = await positionsWithMarkets(models, agent._id);
  const simRows = all.filter(({ p }) => isPoolVenue(p.venue));
  const { open, valueMicro, unrealizedMicro, attention, actions } = await venueAttention(
    models,
    POOL_VENUE,
    simRows,
    { since, now, baseUrl },
  );
  const realizedMicro = agent.realizedPnlMicro;
  const pnlMicro = realizedMicro + unrealizedMicro;
  const holdings = agent.balanceMicro + valueMicro;
  const riskWarnings: string[] = [];
  if (agent.status === 'broke')
    riskWarnings.push('Your sim balance is zero: register a new agent to keep trading.');
  else if (agent.balanceMicro < agent.startingBalanceMicro * 0.1)
    riskWarnings.push('Less than 10% of your starting balance is left in cash.');
  const largest = Math.max(0, ...open.map(({ p, m }) => venueMarkMicro(p, m)));
  if (holdings > 0 && largest > holdings * 0.5)
    riskWarnings.push('More than half of your holdings sit in one market.');
  if (!open.length && agent.tradesCount === 0)
    actions.push(
      'You have not traded yet: find a market with GET /api/sdk/markets and check it with GET /api/sdk/context/{market_id}.',
    );

  const [newMarkets, { rank, totalAgents }, bySkill] = await Promise.all([
    (opts.newMarkets ?? ((from: Date) => newMarketsSince(models, from, baseUrl, now)))(since),
    boardStanding(models, agent),
    simBySkill(models, agent._id, simRows),
  ]);
  const decided = agent.winCount + agent.lossCount;
  return {
    venues: {
      sim: {
        currency: venueMoney(POOL_VENUE).unit,
        balance: fromMicro(agent.balanceMicro),
        cash_balance: fromMicro(agent.balanceMicro),
        portfolio_value: fromMicro(holdings),
        pnl: fromMicro(pnlMicro),
        realized_pnl: fromMicro(realizedMicro),
        unrealized_pnl: fromMicro(unrealizedMicro),
        positions_count: open.length,
        positions_needing_attention: attention,
        actions,
        by_skill: bySkill,
      },
      ...(Object.fromEntries(
        await Promise.all(
          listedVenues(externalVenueIds(), (v) => cash.has(v) || all.some(({ p }) => p.venue === v)).map(
            async (v) => [v, await externalVenue(models, v, all, cash.get(v), { since, now, baseUrl })],
          ),
        ),
      ) as Record<ExternalVenueId, Awaited<ReturnType<typeof externalVenue>>>),
    },
    opportunities: {
      new_markets: newMarkets,
      recommended_skills: await recommendSkills(models, agent),
    },
    performance: {
      total_pnl: fromMicro(pnlMicro),
      pnl_percent: agent.startingBalanceMicro
        ? Math.round((pnlMicro / agent.startingBalanceMicro) * 1e4) / 100
        : 0,
      win_rate: decided ? Math.round((agent.winCount / decided) * 1e4) / 1e4 : 0,
      rank,
      total_agents: totalAgents,
    },
    ...(await briefingRiskAlerts(models, agent._id, now)),
    risk_warnings: [...riskWarnings, ...[...cash.values()].flatMap((c) => (c.warning ? [c.warning] : []))],
    sdk_update: opts.sdkUpdate ?? { update_available: false },
    skill_updates: opts.skillUpdates ?? [],
    since: since.toISOString(),
    checked_at: now.toISOString(),
    agent_id: agent._id,
  };
}
