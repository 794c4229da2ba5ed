import { createHash } from 'node:crypto';
import { prng } from '../../util/prng.js';
import { MICRO } from '../money.js';
import { DEFAULT_LIQUIDITY, stateAt } from './lmsr.js';
import type { MarketModel, MarketRecord } from './market.model.js';
import { POOL_VENUE } from '../venues/venue-id.js';

/**
 * The generated `sim` catalogue: 211 realistic markets across six categories, with tags, 24 h
 * volumes, resolution times from hours to months, multi-option events and a few resolved markets.
 * Deterministic: the same code gives the same questions, ids, prices and volumes every time (times
 * are offsets from the moment of seeding).
 */

/** A stable UUID (v5 layout) for a seed key. */
export function seedUuid(key: string): string {
  const h = createHash('sha1').update(`agent-trading-catalogue:${key}`).digest('hex');
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-5${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

interface Spec {
  key: string;
  question: string;
  category: string;
  tags: string[];
  criteria: string;
  event?: { id: string; name: string; option: string; weight: number };
}

const COUNTRIES = [
  'France',
  'Germany',
  'Japan',
  'Canada',
  'Brazil',
  'India',
  'Australia',
  'Mexico',
  'Italy',
  'Spain',
  'South Korea',
  'Poland',
  'United Kingdom',
  'Netherlands',
  'Argentina',
  'South Africa',
];
const TEAMS = [
  'Lakers',
  'Celtics',
  'Warriors',
  'Bucks',
  'Nuggets',
  'Heat',
  'Knicks',
  'Suns',
  'Chiefs',
  'Eagles',
  '49ers',
  'Bills',
  'Arsenal',
  'Real Madrid',
  'Bayern Munich',
  'Inter Milan',
];
const ASSETS = [
  { sym: 'BTC', name: 'Bitcoin', levels: [80_000, 100_000, 120_000, 150_000] },
  { sym: 'ETH', name: 'Ethereum', levels: [3_000, 4_000, 5_000, 6_000] },
  { sym: 'SOL', name: 'Solana', levels: [150, 200, 300, 400] },
  { sym: 'XRP', name: 'XRP', levels: [2, 3, 5] },
  { sym: 'DOGE', name: 'Dogecoin', levels: [0.25, 0.5, 1] },
];
const ECON = [
  { what: 'US CPI year-over-year', unit: '%', levels: [2.5, 3.0, 3.5] },
  { what: 'US unemployment rate', unit: '%', levels: [4.0, 4.5, 5.0] },
  { what: 'Euro area GDP growth (quarterly)', unit: '%', levels: [0.2, 0.4] },
  { what: 'the 10-year US Treasury yield', unit: '%', levels: [4.0, 4.5, 5.0] },
  { what: 'WTI crude oil', unit: ' USD', levels: [60, 75, 90] },
  { what: 'gold', unit: ' USD/oz', levels: [2_500, 3_000, 3_500] },
  { what: "Japan's core CPI year-over-year", unit: '%', levels: [1.5, 2.0, 2.5] },
  { what: 'the Bank of England base rate', unit: '%', levels: [3.5, 4.0, 4.5] },
];
const SCIENCE = [
  'Will a crewed mission launch to lunar orbit before the deadline?',
  'Will a new room-temperature superconductor claim be independently replicated?',
  'Will a fusion experiment report net energy gain again?',
  'Will a reusable rocket complete five flights in one month?',
  'Will an AI system win a gold medal at the International Mathematical Olympiad?',
  'Will the James Webb telescope announce a confirmed biosignature candidate?',
  'Will a gene therapy for sickle cell disease get approval in a new country?',
  'Will global average temperature set a new monthly record?',
  'Will a new COVID-19 variant be designated of concern by the WHO?',
  'Will a commercial space station module reach orbit?',
  'Will a quantum computer demonstrate error-corrected logical qubits beyond 100?',
  'Will Arctic sea ice reach a new record minimum this season?',
];
const CULTURE = [
  'Will the top-grossing film this weekend earn more than $100M domestically?',
  'Will a streaming series win the most Emmy nominations?',
  'Will a debut album reach number one on the Billboard 200?',
  'Will a video game sell 10 million copies in its first month?',
  'Will a celebrity announce a run for public office?',
  'Will the most-streamed song of the month be by a new artist?',
  'Will a major music festival sell out in under an hour?',
  'Will an animated film top the global box office this month?',
  'Will a book adaptation be renewed for a second season?',
  'Will a viral challenge reach 1 billion views?',
];
const EVENTS = [
  {
    id: 'best-picture',
    name: 'Best Picture winner',
    category: 'culture',
    options: ['The Long Night', 'Harbor Lights', 'Paper Moons', 'Quiet Engines', 'Salt and Iron'],
  },
  {
    id: 'nba-champion',
    name: 'NBA champion',
    category: 'sports',
    options: ['Celtics', 'Nuggets', 'Thunder', 'Knicks', 'Mavericks', 'Other'],
  },
  {
    id: 'fed-decision',
    name: 'Next Fed rate decision',
    category: 'economics',
    options: ['Cut 50 bps', 'Cut 25 bps', 'Hold', 'Hike 25 bps'],
  },
  {
    id: 'top-ai-lab',
    name: 'Top model on the public leaderboard at month end',
    category: 'science',
    options: ['Lab A', 'Lab B', 'Lab C', 'Lab D'],
  },
  {
    id: 'ballon-dor',
    name: "Ballon d'Or winner",
    category: 'sports',
    options: ['Player One', 'Player Two', 'Player Three', 'Player Four', 'Player Five'],
  },
  {
    id: 'party-seats',
    name: 'Largest party after the election',
    category: 'politics',
    options: ['Centre-left', 'Centre-right', 'Greens', 'Liberals'],
  },
];

function specs(): Spec[] {
  const out: Spec[] = [];
  for (const c of COUNTRIES) {
    out.push({
      key: `pol-snap-${c}`,
      question: `Will ${c} hold a snap national election before the end of next year?`,
      category: 'politics',
      tags: ['politics', 'elections', c.toLowerCase()],
      criteria: `Resolves YES if ${c} holds a national legislative election earlier than scheduled before the resolution date.`,
    });
    out.push({
      key: `pol-leader-${c}`,
      question: `Will the head of government of ${c} still be in office at the resolution date?`,
      category: 'politics',
      tags: ['politics', 'leaders', c.toLowerCase()],
      criteria: `Resolves YES if the person holding the office today still holds it at the resolution date.`,
    });
    out.push({
      key: `pol-budget-${c}`,
      question: `Will ${c}'s parliament pass next year's budget on time?`,
      category: 'politics',
      tags: ['politics', 'budget', c.toLowerCase()],
      criteria: `Resolves YES if the budget is passed before the legal deadline.`,
    });
  }
  for (const t of TEAMS) {
    out.push({
      key: `spt-win-${t}`,
      question: `Will the ${t} win their next game?`,
      category: 'sports',
      tags: ['sports', t.toLowerCase().replace(/ /g, '-')],
      criteria: `Resolves YES if the ${t} win their next scheduled official game (overtime counts).`,
    });
    out.push({
      key: `spt-playoffs-${t}`,
      question: `Will the ${t} reach the playoffs (or knockout stage) this season?`,
      category: 'sports',
      tags: ['sports', 'playoffs', t.toLowerCase().replace(/ /g, '-')],
      criteria: `Resolves YES if the ${t} qualify for the post-season this season.`,
    });
  }
  for (const a of ASSETS) {
    for (const level of a.levels) {
      out.push({
        key: `cry-above-${a.sym}-${level}`,
        question: `Will ${a.name} (${a.sym}) trade above $${level.toLocaleString('en-US')} at the resolution time?`,
        category: 'crypto',
        tags: ['crypto', a.sym.toLowerCase()],
        criteria: `Resolves YES if the ${a.sym}/USD spot price is above $${level} at the resolution timestamp (volume-weighted index).`,
      });
      out.push({
        key: `cry-touch-${a.sym}-${level}`,
        question: `Will ${a.name} touch $${level.toLocaleString('en-US')} before the resolution date?`,
        category: 'crypto',
        tags: ['crypto', a.sym.toLowerCase(), 'price-target'],
        criteria: `Resolves YES if any one-minute candle of ${a.sym}/USD trades at or above $${level} before the resolution date.`,
      });
    }
  }
  for (const e of ECON) {
    for (const level of e.levels) {
      out.push({
        key: `eco-${e.what}-${level}`,
        question: `Will ${e.what} print above ${level}${e.unit} in the next release?`,
        category: 'economics',
        tags: ['economics', 'macro'],
        criteria: `Resolves YES if the next official figure for ${e.what} is strictly above ${level}${e.unit}.`,
      });
    }
  }
  for (const [i, q] of SCIENCE.entries()) {
    out.push({
      key: `sci-${i}`,
      question: q,
      category: 'science',
      tags: ['science', i % 2 ? 'space' : 'research'],
      criteria: 'Resolves YES if credible primary sources confirm the event before the resolution date.',
    });
    out.push({
      key: `sci-late-${i}`,
      question: q.replace('?', ' by the end of next year?'),
      category: 'science',
      tags: ['science', 'long-dated'],
      criteria: 'Resolves YES if credible primary sources confirm the event before the resolution date.',
    });
  }
  for (const [i, q] of CULTURE.entries()) {
    out.push({
      key: `cul-${i}`,
      question: q,
      category: 'culture',
      tags: ['culture', i % 3 === 0 ? 'movies' : i % 3 === 1 ? 'music' : 'media'],
      criteria: 'Resolves YES according to the figures published by the usual industry source.',
    });
    out.push({
      key: `cul-next-${i}`,
      question: q.replace('this', 'next').replace('the month', 'next month'),
      category: 'culture',
      tags: ['culture', 'entertainment'],
      criteria: 'Resolves YES according to the figures published by the usual industry source.',
    });
  }
  for (const ev of EVENTS) {
    const weights = ev.options.map((_, i) => 1 / (i + 1.5));
    const total = weights.reduce((a, b) => a + b, 0);
    ev.options.forEach((opt, i) =>
      out.push({
        key: `evt-${ev.id}-${i}`,
        question: `${ev.name}: ${opt}?`,
        category: ev.category,
        tags: [ev.category, 'multi-option', ev.id],
        criteria: `Resolves YES for the option that wins "${ev.name}"; every other option resolves NO.`,
        event: { id: seedUuid(`event-${ev.id}`), name: ev.name, option: opt, weight: weights[i]! / total },
      }),
    );
  }
  return out;
}

const HOUR = 3600_000;

/** The catalogue as market documents, relative to `now`. */
export function generateCatalogue(now: Date): MarketRecord[] {
  const rand = prng(20261122);
  const all = specs();
  return all.map((spec, i) => {
    // Resolution from 2 hours to ~8 months ahead, log-uniform; every 30th market already resolved.
    const resolved = i % 30 === 7;
    const hoursAhead = Math.exp(Math.log(2) + rand() * (Math.log(24 * 240) - Math.log(2)));
    const resolvesAt = new Date(now.getTime() + (resolved ? -rand() * 240 * HOUR : hoursAhead * HOUR));
    const volume = Math.round(Math.exp(Math.log(50) + rand() * (Math.log(400_000) - Math.log(50))));
    const p0 = spec.event
      ? Math.min(0.9, Math.max(0.03, spec.event.weight))
      : Math.round((0.04 + rand() * 0.92) * 1000) / 1000;
    // Deeper books where there is more flow; never shallower than the default sizing.
    const b = volume > 100_000 ? 10_000 : volume > 10_000 ? 5_000 : DEFAULT_LIQUIDITY;
    const s = stateAt(b, p0);
    const id = seedUuid(spec.key);
    const outcome = resolved ? rand() < p0 : null;
    return {
      _id: id,
      question: spec.question,
      description: null,
      status: resolved ? 'resolved' : 'active',
      importSource: POOL_VENUE,
      category: spec.category,
      tags: spec.tags,
      url: null,
      eventId: spec.event?.id ?? null,
      eventName: spec.event?.name ?? null,
      outcomeName: spec.event?.option ?? null,
      eventRef: spec.event ? spec.key.replace(/-\d+$/, '') : null,
      resolvesAt,
      resolvedAt: resolved ? resolvesAt : null,
      settledAt: null,
      outcome,
      resolutionCriteria: spec.criteria,
      currentPrice: resolved ? (outcome ? 1 : 0) : p0,
      externalPriceYes: null,
      externalBestBid: null,
      externalBestAsk: null,
      externalSpread: null,
      externalQuotedAt: null,
      volume24hMicro: volume * MICRO,
      baseVolume24hMicro: volume * MICRO,

      volumeTotalMicro: volume * MICRO * (5 + Math.floor(rand() * 20)),
      lastTradeAt: null,
      venueRef: null,
      venueSlug: null,
      importedBy: null,
      tickSize: 0.01,
      feeRateBps: 0,
      isSdkOnly: false,
      isPaid: false,
      simTradeable: true,
      isOrderbookOpen: !resolved,
      analyticsOnly: false,
      seedKey: spec.key,
      book: { b, q0Yes: s.qYes, q0No: s.qNo, yesMicro: 0, noMicro: 0, version: 0 },
      createdAt: new Date(now.getTime() - (all.length - i) * HOUR),
    };
  });
}

/** Inserts the catalogue markets that are missing (by stable id); never touches existing ones. */
export async function seedCatalogue(
  Market: MarketModel,
  now: Date,
): Promise<{ inserted: number; total: number }> {
  const catalogue = generateCatalogue(now);
  // Only the first generation counts here (top-up generations have keys `<key>@<day>`).
  const present = await Market.countDocuments({ seedKey: { $in: catalogue.map((m) => m.seedKey) } });
  if (present >= catalogue.length) return { inserted: 0, total: catalogue.length };
  const result = await Market.bulkWrite(
    catalogue.map((m) => ({
      updateOne: { filter: { _id: m._id }, update: { $setOnInsert: m }, upsert: true },
    })),
    { ordered: false },
  );
  return { inserted: result.upsertedCount, total: catalogue.length };
}

/**
 * A new generation of the catalogue, keyed by the UTC day, for a long-running instance whose
 * markets have reached their resolution times: same kinds of questions, fresh ids, events and
 * resolution times from `now`. Only open markets are added; idempotent per day.
 */
export async function topUpCatalogue(Market: MarketModel, now: Date): Promise<{ inserted: number }> {
  const day = now.toISOString().slice(0, 10);
  const catalogue = generateCatalogue(now);
  // One generation a day: once its first market is there, today's top-up is done.
  const first = catalogue.find((m) => m.status === 'active')!;
  if (await Market.exists({ _id: seedUuid(`${first.seedKey}@${day}`) })) return { inserted: 0 };
  const fresh = catalogue
    .filter((m) => m.status === 'active')
    .map((m) => {
      const seedKey = `${m.seedKey}@${day}`;
      return {
        ...m,
        _id: seedUuid(seedKey),
        seedKey,
        eventId: m.eventId && `${m.eventId}@${day}`,
        eventRef: m.eventRef && `${m.eventRef}@${day}`,
        createdAt: now,
      };
    });
  const result = await Market.bulkWrite(
    fresh.map((m) => ({ updateOne: { filter: { _id: m._id }, update: { $setOnInsert: m }, upsert: true } })),
    { ordered: false },
  );
  return { inserted: result.upsertedCount };
}
