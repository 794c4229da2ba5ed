import {
  dollarsToPips,
  type EventRecord,
  type MarketRecord,
  type MarketResult,
  type MarketStatus,
  type Pips,
  type SeriesRecord,
  type WireMode,
} from './model.js';

// The fixed catalogue of kalshi.md §5.1: one binary market, the multi-bracket weather event
// KXHIGHNY-26FEB19 (siblings share `title`, differ by `yes_sub_title`), a market with an empty
// book, a scalar market, one in legacy integer-cent mode, one settled past the historical cutoff,
// one DFlow has not tokenized yet, one already finalized. Times are relative to the emulator clock
// at reset, so "active" markets stay active whatever day the suite runs.

const DAY = 86_400_000;

export const FIXTURES = {
  binary: 'KXFEDDECISION-26DEC-T4.00',
  weatherEvent: 'KXHIGHNY-26FEB19',
  weatherBrackets: [
    'KXHIGHNY-26FEB19-T41',
    'KXHIGHNY-26FEB19-B41.5',
    'KXHIGHNY-26FEB19-B43.5',
    'KXHIGHNY-26FEB19-B45.5',
    'KXHIGHNY-26FEB19-T48',
  ],
  emptyBook: 'KXMARSLANDING-30-T2030',
  scalar: 'KXGDPQOQ-26Q4-SCALAR',
  legacy: 'KXRAINNYC-26MAR-T4',
  historical: 'KXHIGHNY-25JAN15-B35.5',
  uninitialized: 'KXBTC15M-26JAN01T1500-T100000',
  finalized: 'KXFEDDECISION-26JAN-T4.25',
  initialized: 'KXSTARSHIP-27-T1',
} as const;

export const SERIES: SeriesRecord[] = [
  { ticker: 'KXFEDDECISION', title: 'Fed funds rate decision', category: 'Economics', frequency: 'custom' },
  {
    ticker: 'KXHIGHNY',
    title: 'Highest temperature in NYC',
    category: 'Climate and Weather',
    frequency: 'daily',
  },
  {
    ticker: 'KXMARSLANDING',
    title: 'Humans on Mars',
    category: 'Science and Technology',
    frequency: 'one_off',
  },
  { ticker: 'KXGDPQOQ', title: 'US GDP growth', category: 'Economics', frequency: 'quarterly' },
  {
    ticker: 'KXRAINNYC',
    title: 'Rain in NYC this month',
    category: 'Climate and Weather',
    frequency: 'monthly',
  },
  { ticker: 'KXBTC15M', title: 'Bitcoin price in 15 minutes', category: 'Crypto', frequency: 'fifteen_min' },
  {
    ticker: 'KXSTARSHIP',
    title: 'Starship orbital launches',
    category: 'Science and Technology',
    frequency: 'yearly',
  },
];

export interface MarketSpec {
  ticker: string;
  title: string;
  yesSubTitle?: string;
  noSubTitle?: string;
  /** YES mid in dollars; null = an empty book. */
  yes: number | null;
  status?: MarketStatus;
  result?: MarketResult;
  closeInDays?: number;
  marketType?: 'binary' | 'scalar';
  strikeType?: string;
  floorStrike?: number | null;
  capStrike?: number | null;
  rulesPrimary?: string;
  wire?: WireMode;
  historical?: boolean;
  dflowInitialized?: boolean;
  volume?: number;
}

export interface EventSpec {
  eventTicker: string;
  seriesTicker: string;
  title: string;
  subTitle: string;
  mutuallyExclusive: boolean;
  category: string;
  markets: MarketSpec[];
}

const weather = (
  ticker: string,
  sub: string,
  yes: number,
  strikeType: string,
  floor: number | null,
  cap: number | null,
): MarketSpec => ({
  ticker,
  title: 'Highest temperature in NYC on Feb 19, 2026?',
  yesSubTitle: sub,
  noSubTitle: sub,
  yes,
  strikeType,
  floorStrike: floor,
  capStrike: cap,
  closeInDays: 1,
  rulesPrimary: `If the highest temperature recorded in Central Park, New York for February 19, 2026 is ${sub}, then the market resolves to Yes.`,
});

export const STATIC_EVENTS: EventSpec[] = [
  {
    eventTicker: 'KXFEDDECISION-26DEC',
    seriesTicker: 'KXFEDDECISION',
    title: 'Fed decision in December 2026',
    subTitle: 'After the Dec 16, 2026 meeting',
    mutuallyExclusive: false,
    category: 'Economics',
    markets: [
      {
        ticker: FIXTURES.binary,
        title:
          'Will the upper bound of the federal funds rate be above 4.00% after the December 2026 meeting?',
        yesSubTitle: 'Above 4.00%',
        noSubTitle: 'Not above 4.00%',
        yes: 0.42,
        closeInDays: 30,
        strikeType: 'greater',
        floorStrike: 4,
        volume: 182_340,
      },
    ],
  },
  {
    eventTicker: 'KXFEDDECISION-26JAN',
    seriesTicker: 'KXFEDDECISION',
    title: 'Fed decision in January 2026',
    subTitle: 'After the Jan 28, 2026 meeting',
    mutuallyExclusive: false,
    category: 'Economics',
    markets: [
      {
        ticker: FIXTURES.finalized,
        title:
          'Will the upper bound of the federal funds rate be above 4.25% after the January 2026 meeting?',
        yesSubTitle: 'Above 4.25%',
        yes: 0.03,
        status: 'finalized',
        result: 'no',
        closeInDays: -3,
        strikeType: 'greater',
        floorStrike: 4.25,
      },
    ],
  },
  {
    eventTicker: FIXTURES.weatherEvent,
    seriesTicker: 'KXHIGHNY',
    title: 'Highest temperature in NYC on Feb 19, 2026?',
    subTitle: 'On Feb 19, 2026',
    mutuallyExclusive: true,
    category: 'Climate and Weather',
    markets: [
      weather(FIXTURES.weatherBrackets[0], '40° or below', 0.08, 'less', null, 41),
      weather(FIXTURES.weatherBrackets[1], '41° to 42°', 0.22, 'between', 41, 42),
      weather(FIXTURES.weatherBrackets[2], '43° to 44°', 0.38, 'between', 43, 44),
      weather(FIXTURES.weatherBrackets[3], '45° to 46°', 0.24, 'between', 45, 46),
      weather(FIXTURES.weatherBrackets[4], '47° or above', 0.08, 'greater', 47, null),
    ],
  },
  {
    eventTicker: 'KXHIGHNY-25JAN15',
    seriesTicker: 'KXHIGHNY',
    title: 'Highest temperature in NYC on Jan 15, 2025?',
    subTitle: 'On Jan 15, 2025',
    mutuallyExclusive: true,
    category: 'Climate and Weather',
    markets: [
      {
        ...weather(FIXTURES.historical, '35° to 36°', 0.97, 'between', 35, 36),
        title: 'Highest temperature in NYC on Jan 15, 2025?',
        status: 'finalized',
        result: 'yes',
        closeInDays: -400,
        historical: true,
      },
    ],
  },
  {
    eventTicker: 'KXMARSLANDING-30',
    seriesTicker: 'KXMARSLANDING',
    title: 'Humans land on Mars before 2030?',
    subTitle: 'Before Jan 1, 2030',
    mutuallyExclusive: false,
    category: 'Science and Technology',
    markets: [
      {
        ticker: FIXTURES.emptyBook,
        title: 'Will humans land on Mars before 2030?',
        yes: null,
        closeInDays: 1_200,
        volume: 0,
      },
    ],
  },
  {
    eventTicker: 'KXGDPQOQ-26Q4',
    seriesTicker: 'KXGDPQOQ',
    title: 'US GDP growth in Q4 2026',
    subTitle: 'Advance estimate',
    mutuallyExclusive: false,
    category: 'Economics',
    markets: [
      {
        ticker: FIXTURES.scalar,
        title: 'US real GDP growth (annualized) in Q4 2026, advance estimate',
        yesSubTitle: 'Scalar from 0% to 5%',
        yes: 0.5,
        marketType: 'scalar',
        strikeType: 'functional',
        floorStrike: 0,
        capStrike: 5,
        closeInDays: 90,
      },
    ],
  },
  {
    eventTicker: 'KXRAINNYC-26MAR',
    seriesTicker: 'KXRAINNYC',
    title: 'Rain in NYC in March 2026?',
    subTitle: 'In March 2026',
    mutuallyExclusive: false,
    category: 'Climate and Weather',
    markets: [
      {
        ticker: FIXTURES.legacy,
        title: 'Will NYC get more than 4 inches of rain in March 2026?',
        yesSubTitle: 'Above 4 inches',
        yes: 0.35,
        closeInDays: 20,
        strikeType: 'greater',
        floorStrike: 4,
        wire: 'legacy',
      },
    ],
  },
  {
    eventTicker: 'KXBTC15M-26JAN01T1500',
    seriesTicker: 'KXBTC15M',
    title: 'Bitcoin price at 3:00 PM ET?',
    subTitle: 'Jan 1, 2026 at 3:00 PM ET',
    mutuallyExclusive: false,
    category: 'Crypto',
    markets: [
      {
        ticker: FIXTURES.uninitialized,
        title: 'Will Bitcoin be above $100,000 at 3:00 PM ET?',
        yesSubTitle: 'Above $100,000',
        yes: 0.55,
        closeInDays: 0.01,
        strikeType: 'greater',
        floorStrike: 100_000,
        dflowInitialized: false,
      },
    ],
  },
  {
    eventTicker: 'KXSTARSHIP-27',
    seriesTicker: 'KXSTARSHIP',
    title: 'Starship reaches orbit in 2027?',
    subTitle: 'In 2027',
    mutuallyExclusive: false,
    category: 'Science and Technology',
    markets: [
      {
        ticker: FIXTURES.initialized,
        title: 'Will Starship reach orbit in 2027?',
        yes: 0.6,
        status: 'initialized',
        closeInDays: 400,
      },
    ],
  },
];

/** One cent of spread on each side of the mid, clamped to the 1¢–99¢ grid. */
export function quoteAround(yes: number | null): { yesBid: Pips | null; yesAsk: Pips | null; last: Pips } {
  if (yes === null) return { yesBid: null, yesAsk: null, last: 0 };
  const mid = dollarsToPips(yes);
  return {
    yesBid: Math.max(100, Math.min(9_800, mid - 100)),
    yesAsk: Math.min(9_900, Math.max(200, mid + 100)),
    last: mid,
  };
}

export function materializeEvent(
  spec: EventSpec,
  now: number,
): { event: EventRecord; markets: MarketRecord[] } {
  const event: EventRecord = {
    eventTicker: spec.eventTicker,
    seriesTicker: spec.seriesTicker,
    title: spec.title,
    subTitle: spec.subTitle,
    mutuallyExclusive: spec.mutuallyExclusive,
    category: spec.category,
    strikeDate: null,
    updatedAt: now,
  };
  const markets = spec.markets.map((m) => materializeMarket(m, spec, now));
  const close = Math.max(...markets.map((m) => m.closeTime));
  event.strikeDate = close;
  return { event, markets };
}

export function materializeMarket(
  m: MarketSpec,
  event: Pick<EventSpec, 'eventTicker' | 'seriesTicker'>,
  now: number,
): MarketRecord {
  const status = m.status ?? 'active';
  const closeTime = now + Math.round((m.closeInDays ?? 7) * DAY);
  const q = quoteAround(m.yes);
  const settled = status === 'finalized' || status === 'determined';
  const result = m.result ?? '';
  return {
    ticker: m.ticker,
    eventTicker: event.eventTicker,
    seriesTicker: event.seriesTicker,
    marketType: m.marketType ?? 'binary',
    title: m.title,
    subtitle: '',
    yesSubTitle: m.yesSubTitle ?? '',
    noSubTitle: m.noSubTitle ?? m.yesSubTitle ?? '',
    status,
    openTime: Math.min(now - 2 * DAY, closeTime - DAY),
    closeTime,
    expectedExpirationTime: closeTime + 3 * 3_600_000,
    latestExpirationTime: closeTime + 14 * DAY,
    canCloseEarly: false,
    settlementTimerSeconds: 1_800,
    yesBid: settled ? null : q.yesBid,
    yesAsk: settled ? null : q.yesAsk,
    lastPrice: q.last,
    previousYesBid: q.yesBid ?? 0,
    previousYesAsk: q.yesAsk ?? 0,
    previousPrice: q.last,
    depth: 250,
    volume: m.volume ?? 12_500,
    volume24h: Math.round((m.volume ?? 12_500) / 20),
    openInterest: Math.round((m.volume ?? 12_500) / 3),
    result,
    settlementValue: settled ? (result === 'yes' ? 10_000 : 0) : null,
    settlementTs: settled ? closeTime + 3_600_000 : null,
    expirationValue: settled ? (result === 'yes' ? 'yes' : 'no') : '',
    rulesPrimary:
      m.rulesPrimary ??
      `If ${m.title.replace(/^Will /, '').replace(/\?$/, '')}, then the market resolves to Yes.`,
    rulesSecondary: 'The result is determined from the official source named in the rules.',
    strikeType: m.strikeType ?? 'structured',
    floorStrike: m.floorStrike ?? null,
    capStrike: m.capStrike ?? null,
    priceLevelStructure: 'linear_cent',
    wire: m.wire ?? 'current',
    legacySettled: false,
    historical: m.historical ?? false,
    dflowInitialized: m.dflowInitialized ?? true,
    redemptionStatus: status === 'finalized' ? 'open' : 'closed',
    scalarOutcomePct: null,
    updatedAt: now,
  };
}
