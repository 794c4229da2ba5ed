import assert from 'node:assert/strict';
import { BinanceKlines, CLOSE_SETTLE_MS } from '../../shared/domains/candles/binance-klines.js';
import { CANDLE_SYMBOLS } from '../../shared/domains/candles/candle-series.js';
import { recordCandles, type CandleRecorderDeps } from '../../shared/domains/candles/record-candles.js';
import { createCandleSource } from '../../shared/composition/market-data.js';
import { minuteSlot } from '../../shared/infra/queue/slots.js';
import { candleAt, startBinanceEmulator, type BinanceEmulator } from '../emulators/binance/index.js';
import { testContext } from '../support/context.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';

const MINUTE = 60_000;
/** The recorder's clock in these tests: half a minute into the 12:34 candle, which is still open. */
const NOW = Date.UTC(2026, 10, 20, 12, 34, 30);
const at = (hhmm: string) => `2026-11-20T${hhmm}:00.000Z`;
const ms = (hhmm: string) => Date.parse(at(hhmm));

describe('Candles: the binance source, the recorder and GET /api/replay-data/candles #integration', () => {
  let emulator: BinanceEmulator;
  let emulatorNow = NOW;
  let clockMs = NOW;
  let source: BinanceKlines;
  let recorder: CandleRecorderDeps;
  let agent: RegisteredAgent;

  before(async () => {
    const { deps } = testContext();
    emulator = await startBinanceEmulator({ now: () => emulatorNow });
    source = createCandleSource({ ...deps.env, BINANCE_BASE_URL: emulator.url }, deps.metrics, deps.log);
    recorder = {
      ...deps,
      candles: source,
      clock: () => new Date(clockMs),
      env: { ...deps.env, CANDLE_BACKFILL_HOURS: 2 },
    };
    agent = await registerAgent();
  });
  after(async () => {
    await emulator.close();
  });
  beforeEach(async () => {
    emulatorNow = NOW;
    clockMs = NOW;
    await testContext().deps.models.Candle.deleteMany({});
  });

  const storedRows = () =>
    testContext().deps.models.Candle.find({}, { _id: 0 }).sort({ symbol: 1, openTime: 1 }).lean();
  const candles = (query: Record<string, string>, key: string | null = agent.api_key) => {
    const req = api().get('/api/replay-data/candles').query(query);
    return key ? req.set('Authorization', `Bearer ${key}`) : req;
  };

  describe('the binance source', () => {
    it('when it reads a page, then it parses Binance’s rows into numbers and leaves out the candle in progress', async () => {
      const { klines, lastPage } = await source.closedKlines('BTCUSDT', '1m', ms('12:24'), NOW);
      assert.equal(lastPage, true);
      assert.deepEqual(
        klines.map((k) => k.openTime),
        Array.from({ length: 10 }, (_, i) => ms('12:24') + i * MINUTE),
        '12:24 … 12:33; the 12:34 candle is still open',
      );
      const expected = candleAt('BTCUSDT', ms('12:30'), MINUTE);
      assert.deepEqual(klines[6], {
        openTime: expected.openTime,
        closeTime: expected.closeTime,
        open: expected.open,
        high: expected.high,
        low: expected.low,
        close: expected.close,
        volume: expected.volume,
      });
    });

    it('when a candle closed a moment ago, then it waits for it to settle before calling it closed', async () => {
      emulatorNow = ms('12:35') + 500;
      const early = await source.closedKlines('ETHUSDT', '1m', ms('12:33'), emulatorNow);
      assert.deepEqual(
        early.klines.map((k) => k.openTime),
        [ms('12:33')],
      );
      const settled = await source.closedKlines('ETHUSDT', '1m', ms('12:33'), ms('12:35') + CLOSE_SETTLE_MS);
      assert.deepEqual(
        settled.klines.map((k) => k.openTime),
        [ms('12:33'), ms('12:34')],
      );
    });

    it('when the operator lists the venues, then the service’s own candle source shows with its host and circuit', async () => {
      const { binance, operatorToken } = testContext();
      const res = await api().get('/api/admin/venues').set('Authorization', `Bearer ${operatorToken}`);
      assert.equal(res.status, 200);
      const entry = res.body.venues.find((v: { venue: string }) => v.venue === 'binance');
      assert.equal(entry.hosts[0].base_url, binance.url);
      assert.equal(entry.hosts[0].circuit, 'closed');
    });
  });

  describe('the recorder', () => {
    it('when it runs twice at the same time, then the second run adds nothing and the rows are the same', async () => {
      const first = await recordCandles(recorder);
      assert.deepEqual(
        first.series.map((s) => [s.symbol, s.stored, s.through]),
        CANDLE_SYMBOLS.map((symbol) => [symbol, 120, at('12:33')]),
        'first run: the last 2 hours of closed candles (10:34 … 12:33) per symbol',
      );
      const rows = await storedRows();
      assert.equal(rows.length, 360);
      const second = await recordCandles(recorder);
      assert.deepEqual(
        second.series.map((s) => s.stored),
        [0, 0, 0],
      );
      assert.deepEqual(await storedRows(), rows);
    });

    it('when time moves on, then it continues from the newest stored candle without a gap or the open candle', async () => {
      await recordCandles(recorder);
      clockMs = emulatorNow = NOW + 3 * MINUTE;
      const next = await recordCandles(recorder);
      assert.deepEqual(
        next.series.map((s) => [s.stored, s.through]),
        [
          [3, at('12:36')],
          [3, at('12:36')],
          [3, at('12:36')],
        ],
      );
      const sol = (await storedRows()).filter((r) => r.symbol === 'SOLUSDT');
      assert.equal(sol.length, 123);
      sol.forEach((r, i) => assert.equal(r.openTime.getTime(), ms('10:34') + i * MINUTE));
      const last = candleAt('SOLUSDT', ms('12:36'), MINUTE);
      assert.deepEqual(
        [sol.at(-1)!.open, sol.at(-1)!.close, sol.at(-1)!.volume, sol.at(-1)!.source],
        [last.open, last.close, last.volume, 'binance'],
      );
    });

    it('when the scheduled job runs on a worker, then it records up to the present from the service’s own source', async () => {
      // Seed the series a few minutes back so that the job (real clock) has little to catch up.
      const { deps } = testContext();
      const seedAt = Date.now() - 5 * MINUTE;
      clockMs = emulatorNow = seedAt;
      await recordCandles({ ...recorder, env: { ...deps.env, CANDLE_BACKFILL_HOURS: 1 } });
      const outcome = await deps.queues.enqueueAndWait<{ series: { stored: number; through: string }[] }>(
        'record-candles',
        { slot: minuteSlot(new Date()) },
        20_000,
      );
      assert.equal(outcome.state, 'completed', JSON.stringify(outcome));
      const latestClosed = Math.floor((Date.now() - CLOSE_SETTLE_MS) / MINUTE) * MINUTE - MINUTE;
      for (const s of outcome.result!.series) {
        assert.ok(s.stored >= 3, `stored ${s.stored}`);
        assert.ok(Date.parse(s.through) >= latestClosed - MINUTE, s.through);
      }
    });
  });

  describe('GET /api/replay-data/candles', () => {
    beforeEach(async () => {
      await recordCandles(recorder); // 10:34 … 12:33 recorded
    });

    it('when the window lies inside the record, then it answers every closed candle of it and complete: true', async () => {
      const res = await candles({ symbol: 'BTCUSDT', interval: '1m', start: at('11:00'), end: at('12:00') });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const body = res.body;
      assert.deepEqual(
        {
          symbol: body.symbol,
          interval: body.interval,
          start: body.start,
          end: body.end,
          served_through: body.served_through,
          complete: body.complete,
          source: body.source,
        },
        {
          symbol: 'BTCUSDT',
          interval: '1m',
          start: at('11:00'),
          end: at('12:00'),
          served_through: at('12:00'),
          complete: true,
          source: 'binance',
        },
      );
      assert.equal(body.candles.length, 60, '11:00 … 11:59: the 11:59 candle closes at 11:59:59.999');
      const expected = candleAt('BTCUSDT', ms('11:30'), MINUTE);
      assert.deepEqual(body.candles[30], {
        open_time: at('11:30'),
        close_time: '2026-11-20T11:30:59.999Z',
        open: expected.open,
        high: expected.high,
        low: expected.low,
        close: expected.close,
        volume: expected.volume,
      });
    });

    it('when the window runs past the record, then it serves what is recorded with complete: false and served_through where the record stops', async () => {
      const res = await candles({ symbol: 'ethusdt', start: at('12:00'), end: at('13:00') });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.symbol, 'ETHUSDT');
      assert.equal(res.body.complete, false);
      assert.equal(res.body.served_through, at('12:34'));
      assert.equal(res.body.candles.length, 34);
      assert.equal(res.body.candles.at(-1).open_time, at('12:33'));
      assert.equal(res.body.recorded_through, at('12:34'));
    });

    it('when a longer interval is asked, then its candles are built from the recorded minutes as Binance builds them', async () => {
      const res = await candles({ symbol: 'SOLUSDT', interval: '5m', start: at('11:58'), end: at('12:40') });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(
        res.body.candles.map((c: { open_time: string }) => c.open_time),
        [at('12:00'), at('12:05'), at('12:10'), at('12:15'), at('12:20'), at('12:25')],
        'whole 5m candles only: 12:30 … 12:34 is not all recorded (12:34 was open)',
      );
      assert.deepEqual([res.body.complete, res.body.served_through], [false, at('12:30')]);
      const minutes = Array.from({ length: 5 }, (_, i) =>
        candleAt('SOLUSDT', ms('12:10') + i * MINUTE, MINUTE),
      );
      const fiveMinutes = candleAt('SOLUSDT', ms('12:10'), 5 * MINUTE);
      const c = res.body.candles[2];
      assert.deepEqual(
        [c.close_time, c.open, c.high, c.low, c.close],
        ['2026-11-20T12:14:59.999Z', fiveMinutes.open, fiveMinutes.high, fiveMinutes.low, fiveMinutes.close],
      );
      const volume = minutes.reduce((sum, m) => sum + m.volume, 0);
      assert.ok(Math.abs(c.volume - volume) < 1e-8, `${c.volume} = Σ ${volume}`);
    });

    it('when the window begins before recording did, then it serves nothing and sends the client to Binance from start', async () => {
      const res = await candles({ symbol: 'SOLUSDT', start: at('10:00'), end: at('11:00') });
      assert.equal(res.status, 200);
      assert.deepEqual(
        [res.body.complete, res.body.served_through, res.body.candles.length, res.body.recorded_from],
        [false, at('10:00'), 0, at('10:34')],
      );
    });

    it('when the times carry no offset or end mid-candle, then they are read as UTC and the open candle is left out', async () => {
      const res = await candles({
        symbol: 'BTCUSDT',
        start: '2026-11-20T12:00:00',
        end: '2026-11-20T12:10:30.123456',
      });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.start, at('12:00'));
      assert.equal(res.body.candles.length, 10, '12:00 … 12:09; 12:10 is not closed by 12:10:30');
      assert.equal(res.body.complete, true);
    });

    for (const [what, query, field] of [
      ['end before start', { symbol: 'BTCUSDT', start: at('12:00'), end: at('11:00') }, 'end'],
      ['a window over 8 days', { symbol: 'BTCUSDT', start: '2026-11-01T00:00:00Z', end: at('12:00') }, 'end'],
      ['a symbol not recorded', { symbol: 'DOGEUSDT', start: at('11:00'), end: at('12:00') }, 'symbol'],
      [
        'an interval not served',
        { symbol: 'BTCUSDT', interval: '4h', start: at('11:00'), end: at('12:00') },
        'interval',
      ],
      [
        'a start that is not a timestamp',
        { symbol: 'BTCUSDT', start: 'yesterday', end: at('12:00') },
        'start',
      ],
      ['no end', { symbol: 'BTCUSDT', start: at('11:00') }, 'end'],
    ] as const) {
      it(`when the request has ${what}, then it answers 422 naming ${field} with a fix`, async () => {
        const res = await candles(query);
        assert.equal(res.status, 422, JSON.stringify(res.body));
        assert.deepEqual(res.body.detail[0].loc, ['query', field]);
        assert.equal(typeof res.body.error, 'string');
        assert.ok(res.body.fix.length > 10);
      });
    }

    it('when no agent key is sent, then it answers 401 with a fix', async () => {
      const res = await candles({ symbol: 'BTCUSDT', start: at('11:00'), end: at('12:00') }, null);
      assert.equal(res.status, 401);
      assert.ok(res.body.fix);
    });

    it('when the contract is published, then /openapi.json lists the endpoint with its query and answer', async () => {
      const doc = (await api().get('/openapi.json')).body;
      const op = doc.paths['/api/replay-data/candles'].get;
      assert.deepEqual(op.parameters.map((p: { name: string }) => p.name).sort(), [
        'end',
        'interval',
        'start',
        'symbol',
      ]);
      assert.ok(doc.components.schemas.Candles.properties.served_through);
    });
  });
});
