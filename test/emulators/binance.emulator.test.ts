import assert from 'node:assert/strict';
import { startBinanceEmulator, type BinanceEmulator } from './binance/index.js';
import {
  FAST_ASSETS,
  FAST_WINDOWS,
  currentWindowStart,
  fastMarketSlug,
  startPolymarketEmulator,
  type PolymarketEmulator,
} from './polymarket/index.js';

const T0 = Date.UTC(2026, 10, 27, 15, 42, 30);
/** Open time of the candle in progress at T0. */
const OPEN_AT_T0 = Date.UTC(2026, 10, 27, 15, 42);
let clockMs = T0;

/** Wire bodies as parsed JSON: the tests read them field by field. */
type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

async function getJson(url: string): Promise<{ status: number; body: Json }> {
  const res = await fetch(url);
  return { status: res.status, body: await res.json() };
}

describe('Binance emulator: klines of the price path the fast markets resolve by #emulator', () => {
  let binance: BinanceEmulator;
  let polymarket: PolymarketEmulator;
  const klines = (query: string) => getJson(`${binance.url}/api/v3/klines?${query}`);

  before(async () => {
    binance = await startBinanceEmulator({ now: () => clockMs });
    polymarket = await startPolymarketEmulator({ now: () => clockMs });
  });
  after(async () => {
    await binance.close();
    await polymarket.close();
  });
  beforeEach(() => {
    clockMs = T0;
  });

  it('when klines are asked from a start time, then rows come in Binance’s wire shape up to and including the candle in progress', async () => {
    const from = OPEN_AT_T0 - 5 * 60_000 - 20_000;
    const { status, body } = await klines(`symbol=BTCUSDT&interval=1m&startTime=${from}&limit=1000`);
    assert.equal(status, 200);
    assert.equal(body.length, 6, 'five closed candles and the one in progress');
    for (const row of body) {
      assert.equal(row.length, 12);
      assert.equal(typeof row[0], 'number');
      for (const i of [1, 2, 3, 4, 5, 7, 9, 10]) assert.match(row[i], /^\d+\.\d{8}$/, `field ${i}`);
      assert.equal(row[6], row[0] + 59_999, 'close time is the candle’s last millisecond');
      const [open, high, low, close] = row.slice(1, 5).map(Number);
      assert.ok(
        high >= Math.max(open, close) && low <= Math.min(open, close),
        'high and low bound the candle',
      );
    }
    assert.equal(body[0][0], Math.ceil(from / 60_000) * 60_000);
    assert.ok(body.at(-1)[6] > T0, 'the last one is still open');
    for (let i = 1; i < body.length; i++)
      assert.equal(body[i][1], body[i - 1][4], 'a close is the next open');
  });

  it('when two emulators are asked for the same candles at different times, then they answer the same prices', async () => {
    const other = await startBinanceEmulator({ now: () => T0 + 3_600_000 });
    try {
      const query = `symbol=SOLUSDT&interval=1m&startTime=${OPEN_AT_T0 - 30 * 60_000}&endTime=${OPEN_AT_T0 - 1}`;
      const [a, b] = await Promise.all([klines(query), getJson(`${other.url}/api/v3/klines?${query}`)]);
      assert.equal(a.body.length, 30);
      assert.deepEqual(a.body, b.body);
    } finally {
      await other.close();
    }
  });

  it('when no start is given, then the most recent `limit` candles are listed', async () => {
    const { body } = await klines('symbol=ETHUSDT&interval=1m&limit=3');
    assert.equal(body.length, 3);
    assert.equal(body.at(-1)[0], OPEN_AT_T0);
  });

  it('when the symbol, interval or limit is wrong, then it answers 400 with Binance’s code and msg', async () => {
    assert.deepEqual(await klines('symbol=DOGEBTC&interval=1m'), {
      status: 400,
      body: { code: -1121, msg: 'Invalid symbol.' },
    });
    assert.deepEqual((await klines('symbol=BTCUSDT&interval=7m')).body, {
      code: -1120,
      msg: 'Invalid interval.',
    });
    assert.equal((await klines('symbol=BTCUSDT&interval=1m&limit=1001')).body.code, -1130);
    assert.equal((await klines('interval=1m')).body.code, -1102);
    assert.deepEqual(await getJson(`${binance.url}/api/v3/time`), { status: 200, body: { serverTime: T0 } });
    assert.deepEqual(await getJson(`${binance.url}/api/v3/ping`), { status: 200, body: {} });
  });

  it('when fast markets resolve, then each winner is Up exactly when the window’s 1m candles close at or above their open', async () => {
    const outcomes: string[] = [];
    for (const asset of FAST_ASSETS) {
      for (const window of FAST_WINDOWS) {
        const startSec = currentWindowStart(T0, window.seconds);
        const slug = fastMarketSlug(asset.key, window.key, startSec);
        const startMs = startSec * 1000;
        const endMs = startMs + window.seconds * 1000;
        clockMs = T0;
        // Listed while the window runs; resolved 30 s after it ends.
        assert.equal((await getJson(`${polymarket.gammaUrl}/markets/slug/${slug}`)).status, 200);
        clockMs = endMs + 31_000;
        const market = (await getJson(`${polymarket.gammaUrl}/markets/slug/${slug}`)).body;
        assert.equal(market.umaResolutionStatus, 'resolved', slug);

        const { body: candles } = await klines(
          `symbol=${asset.symbol}&interval=1m&startTime=${startMs}&endTime=${endMs - 60_000}`,
        );
        assert.equal(candles.length, window.seconds / 60, `${slug}: the window's candles`);
        const up = Number(candles.at(-1)[4]) >= Number(candles[0][1]);
        assert.deepEqual(JSON.parse(market.outcomePrices), up ? ['1', '0'] : ['0', '1'], slug);
        outcomes.push(up ? 'up' : 'down');
      }
    }
    assert.equal(outcomes.length, 6);
  });
});
