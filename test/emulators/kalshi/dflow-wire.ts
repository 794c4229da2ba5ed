import { SETTLEMENT_MINTS } from './constants.js';
import { marketAccounts } from './dflow/mints.js';
import { ONE_DOLLAR, pipsToDollars, type EventRecord, type MarketRecord, type Pips } from './model.js';
import { emittedStatus } from './kalshi-wire.js';

// DFlow metadata API JSON (kalshi.md §2.2): camelCase, 4-dp probability strings that are null
// when the side is empty, unix-second times, and `accounts` keyed by settlement mint (there is no
// top-level settlementMint).

const prob = (p: Pips | null) => (p === null ? null : pipsToDollars(p));
const unix = (ms: number) => Math.floor(ms / 1000);

export function dflowMarket(m: MarketRecord): Record<string, unknown> {
  const accounts: Record<string, unknown> = {};
  for (const mint of SETTLEMENT_MINTS) {
    accounts[mint] = {
      ...marketAccounts(m.ticker, mint),
      isInitialized: m.dflowInitialized,
      redemptionStatus: m.redemptionStatus,
      ...(m.scalarOutcomePct !== null ? { scalarOutcomePct: m.scalarOutcomePct } : {}),
    };
  }
  return {
    ticker: m.ticker,
    eventTicker: m.eventTicker,
    marketType: m.marketType,
    title: m.title,
    subtitle: m.subtitle,
    yesSubTitle: m.yesSubTitle,
    noSubTitle: m.noSubTitle,
    openTime: unix(m.openTime),
    closeTime: unix(m.closeTime),
    expirationTime: unix(m.latestExpirationTime),
    status: emittedStatus(m),
    result: m.result,
    canCloseEarly: m.canCloseEarly,
    rulesPrimary: m.rulesPrimary,
    rulesSecondary: m.rulesSecondary,
    yesBid: prob(m.yesBid),
    yesAsk: prob(m.yesAsk),
    noBid: prob(m.yesAsk === null ? null : ONE_DOLLAR - m.yesAsk),
    noAsk: prob(m.yesBid === null ? null : ONE_DOLLAR - m.yesBid),
    volume: Math.round(m.volume),
    volumeFp: m.volume.toFixed(2),
    volume24hFp: m.volume24h.toFixed(2),
    openInterest: Math.round(m.openInterest),
    openInterestFp: m.openInterest.toFixed(2),
    accounts,
  };
}

export function dflowEvent(e: EventRecord, markets: MarketRecord[] | undefined): Record<string, unknown> {
  return {
    ticker: e.eventTicker,
    seriesTicker: e.seriesTicker,
    title: e.title,
    subtitle: e.subTitle,
    mutuallyExclusive: e.mutuallyExclusive,
    ...(e.strikeDate !== null ? { strikeDate: unix(e.strikeDate) } : {}),
    ...(markets ? { markets: markets.map(dflowMarket) } : {}),
  };
}
