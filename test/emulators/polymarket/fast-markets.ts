import { pathWentUp } from '../binance/price-path.js';
import { TAGS } from './catalogue.js';
import { bytes32, numericId, seededRandom, tokenId } from './ids.js';
import { onGrid, type EventRecord, type MarketRecord, type Tag } from './model.js';

// Rolling crypto "Up or Down" markets, generated from the clock the way Polymarket lists them:
// one event + market per asset and window, slug `<asset>-updown-<5m|15m>-<window start, unix s>`.
// At any instant the current window and the next two exist; a window past its end closes, and a
// little later (the Chainlink auto-resolution) resolves Up or Down by the emulated price path
// (../binance/price-path.ts), the same path the Binance emulator's klines are made of.

export const FAST_ASSETS = [
  { key: 'btc', name: 'Bitcoin', pair: 'BTC/USD', symbol: 'BTCUSDT', tag: TAGS.bitcoin },
  { key: 'eth', name: 'Ethereum', pair: 'ETH/USD', symbol: 'ETHUSDT', tag: TAGS.ethereum },
  { key: 'sol', name: 'Solana', pair: 'SOL/USD', symbol: 'SOLUSDT', tag: TAGS.solana },
] as const;

export const FAST_WINDOWS = [
  { key: '5m', seconds: 300, tag: TAGS.fiveMin },
  { key: '15m', seconds: 900, tag: TAGS.fifteenMin },
] as const;

export type FastAsset = (typeof FAST_ASSETS)[number]['key'];
export type FastWindow = (typeof FAST_WINDOWS)[number]['key'];

/** How many windows after the current one are listed in advance. */
export const FAST_WINDOWS_AHEAD = 2;

export function fastMarketSlug(asset: FastAsset, window: FastWindow, startSec: number): string {
  return `${asset}-updown-${window}-${startSec}`;
}

/** Start (unix s) of the window containing `nowMs`, for a window length in seconds. */
export function currentWindowStart(nowMs: number, seconds: number): number {
  return Math.floor(nowMs / 1000 / seconds) * seconds;
}

/**
 * The outcome of a fast market, read off its slug (`<asset>-updown-<window>-<start>`): Up (`yes`)
 * when the asset's price path ends the window at or above where it started, as the market's
 * description says — so the window's 1m candles served by the Binance emulator show the winner.
 */
export function fastWinner(slug: string): 'yes' | 'no' {
  const match = /^([a-z]+)-updown-(\w+)-(\d+)$/.exec(slug);
  const asset = FAST_ASSETS.find((a) => a.key === match?.[1]);
  const window = FAST_WINDOWS.find((w) => w.key === match?.[2]);
  if (!match || !asset || !window) throw new Error(`not a fast-market slug: ${slug}`);
  const startMs = Number(match[3]) * 1000;
  return pathWentUp(asset.symbol, startMs, startMs + window.seconds * 1000) ? 'yes' : 'no';
}

const ET_DAY = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  month: 'long',
  day: 'numeric',
});
const ET_TIME = new Intl.DateTimeFormat('en-US', {
  timeZone: 'America/New_York',
  hour: 'numeric',
  minute: '2-digit',
  hour12: true,
});
const etTime = (ms: number) => ET_TIME.format(ms).replace(/\s/g, '');

/** "Bitcoin Up or Down - November 23, 3:15PM-3:30PM ET" — Polymarket titles these in US Eastern time. */
export function fastQuestion(assetName: string, startMs: number, endMs: number): string {
  return `${assetName} Up or Down - ${ET_DAY.format(startMs)}, ${etTime(startMs)}-${etTime(endMs)} ET`;
}

export function buildFastMarket(
  asset: (typeof FAST_ASSETS)[number],
  window: (typeof FAST_WINDOWS)[number],
  startSec: number,
): { event: EventRecord; market: MarketRecord } {
  const slug = fastMarketSlug(asset.key, window.key, startSec);
  const startMs = startSec * 1000;
  const endMs = startMs + window.seconds * 1000;
  // Listed FAST_WINDOWS_AHEAD windows before it starts.
  const createdMs = startMs - FAST_WINDOWS_AHEAD * window.seconds * 1000;
  const r = seededRandom(`fast:${slug}`);
  const price = onGrid(0.5 + (r() - 0.5) * 0.3, 0.01);
  const question = fastQuestion(asset.name, startMs, endMs);
  const stream = `https://data.chain.link/streams/${asset.key}-usd`;
  const description =
    `This market will resolve to "Up" if the ${asset.name} price at the end of the time range specified in ` +
    'the title is greater than or equal to the price at the beginning of that range. Otherwise, it will ' +
    `resolve to "Down".\nThe resolution source for this market is information from Chainlink, specifically ` +
    `the ${asset.pair} data stream available at ${stream}.`;
  const eventId = numericId(`event:${slug}`, 200_000, 100_000);
  const tags: Tag[] = [TAGS.crypto, asset.tag, TAGS.upOrDown, window.tag, TAGS.recurring, TAGS.cryptoPrices];
  const volume = Math.round((2_000 + r() * 60_000) * 100) / 100;
  const market: MarketRecord = {
    id: numericId(slug, 1_100_000, 8_000_000),
    eventId,
    slug,
    question,
    description,
    resolutionSource: stream,
    conditionId: bytes32(`condition:${slug}`),
    questionId: bytes32(`question:${slug}`),
    outcomes: ['Up', 'Down'],
    tokenIds: [tokenId(`${slug}:0`), tokenId(`${slug}:1`)],
    price,
    tick: 0.01,
    minSize: 5,
    negRisk: false,
    negRiskMarketId: '',
    negRiskRequestId: '',
    groupItemTitle: '',
    startMs,
    endMs,
    createdMs,
    volume,
    volume24hr: volume,
    liquidity: Math.round((5_000 + r() * 20_000) * 100) / 100,
    active: true,
    closed: false,
    archived: false,
    acceptingOrders: true,
    enableOrderBook: true,
    closedMs: undefined,
    resolution: undefined,
    umaStatus: undefined,
    umaStatuses: [],
    lastTrade: { price, side: 'BUY' },
    bookUpdatedMs: createdMs,
    bookVersion: 0,
    moves: [{ t: createdMs, p: price }],
    historyAnchorMs: createdMs,
    feesEnabled: true,
    feeType: 'crypto_fees_v2',
    makerBaseFee: 1000,
    takerBaseFee: 1000,
    fast: true,
    image: `https://polymarket-upload.s3.us-east-2.amazonaws.com/${asset.key}-up-or-down.png`,
  };
  const event: EventRecord = {
    id: eventId,
    slug,
    title: question,
    description,
    resolutionSource: stream,
    startMs,
    endMs,
    createdMs,
    tags,
    marketIds: [market.id],
    negRisk: false,
    negRiskMarketId: '',
    series: {
      id: numericId(`series:${asset.key}-${window.key}`, 10_000, 90_000),
      slug: `${asset.key}-up-or-down-${window.key}`,
      title: `${asset.name} Up or Down ${window.key}`,
      recurrence: window.key,
    },
    image: market.image,
  };
  return { event, market };
}
