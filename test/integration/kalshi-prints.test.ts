import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { KalshiAdapter } from '../../shared/domains/venues/kalshi/kalshi-adapter.js';
import type { VenuePrint } from '../../shared/domains/venues/venue-adapter.js';
import { createVenueMetrics } from '../../shared/infra/http/venue-metrics.js';
import { createLogger } from '../../shared/infra/logger.js';
import { FIXTURES, startKalshiEmulator, type KalshiEmulator } from '../emulators/kalshi/index.js';

// The Kalshi adapter's publicPrints against the emulator's `/markets/trades`: strictly after the
// watermark, oldest first, a NO taker read as a seller of YES, the cursor followed across pages,
// both wires, and nothing repeated across calls that advance the watermark. Prices move on the
// emulator's own clock, one move per second.

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const T0 = Date.UTC(2026, 10, 27, 9, 0, 0);
const T0_SEC = T0 / 1000;

describe('kalshi adapter: public prints #integration', function () {
  let clockMs = T0;
  let emu: KalshiEmulator;
  let adapter: KalshiAdapter;

  const key = { externalId: FIXTURES.binary };
  /** One admin price move per emulator second, starting one second after T0. */
  const moveEachSecond = async (ticker: string, prices: number[]) => {
    for (const yes of prices) {
      clockMs += 1000;
      const res = await fetch(`${emu.adminUrl}/markets/${ticker}/price`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ yes }),
      });
      assert.equal(res.status, 200, await res.text());
    }
  };
  const tapeRequests = async () =>
    ((await (await fetch(`${emu.adminUrl}/requests`)).json()) as { path: string }[]).filter(
      (r) => r.path === '/trade-api/v2/markets/trades',
    ).length;

  before(async () => {
    emu = await startKalshiEmulator({ now: () => clockMs });
  });
  after(async () => {
    await emu?.close();
  });
  beforeEach(async () => {
    clockMs = T0;
    await fetch(`${emu.adminUrl}/reset`, { method: 'POST' });
    adapter = new KalshiAdapter({
      baseUrl: emu.kalshiUrl,
      timeoutMs: 2000,
      retries: 1,
      backoffMs: 5,
      breakerFailures: 5,
      breakerCooldownMs: 30_000,
      metrics: createVenueMetrics(new Registry()),
      log: createLogger('silent', 'test'),
    });
  });

  it('when prices moved, then the prints strictly after the watermark come oldest first, a NO taker as a sale of YES', async () => {
    await moveEachSecond(FIXTURES.binary, [0.5, 0.35]);
    const { trades } = (await (
      await fetch(`${emu.kalshiUrl}/markets/trades?ticker=${FIXTURES.binary}&limit=1000`)
    ).json()) as { trades: Json[] };

    const prints = await adapter.publicPrints(
      { externalId: FIXTURES.binary.toLowerCase() },
      {
        afterSec: T0_SEC + 1,
        limit: 100,
      },
    );

    const later = trades.filter((t) => Date.parse(t.created_time) / 1000 > T0_SEC + 1).reverse();
    assert.ok(later.length > 0 && later.every((t) => t.taker_side === 'no'), 'a move down is NO takers');
    assert.deepEqual(
      prints.map((p) => p.id),
      later.map((t) => t.trade_id),
      'oldest first, only after the watermark',
    );
    prints.forEach((p, i) => {
      const t = later[i];
      assert.equal(p.timestamp, T0_SEC + 2);
      assert.equal(p.side, 'SELL');
      assert.equal(p.yesPrice, Number(t.yes_price_dollars));
      assert.equal(p.shares, Number(t.count_fp));
      assert.equal(
        p.usd,
        Number((Number(t.count_fp) * Number(t.no_price_dollars)).toFixed(6)),
        'paid at the NO price',
      );
      assert.deepEqual([p.maker, p.taker, p.transactionHash], [null, null, null]);
    });
    assert.equal(prints.at(-1)!.yesPrice, 0.35, 'the move ends at the new price');
  });

  it('when a market is on the legacy wire, then its integer-cent trades print the same way', async () => {
    await moveEachSecond(FIXTURES.legacy, [0.6]);
    const prints = await adapter.publicPrints(
      { externalId: FIXTURES.legacy },
      { afterSec: T0_SEC, limit: 100 },
    );
    assert.ok(prints.length > 0);
    assert.ok(prints.every((p) => p.side === 'BUY' && p.usd === Number((p.shares * p.yesPrice).toFixed(6))));
    assert.equal(prints.at(-1)!.yesPrice, 0.6);
  });

  it('when more trades than one page wait, then the cursor is followed and each comes once', async () => {
    const m = emu.state.markets.get(FIXTURES.binary)!;
    for (let i = 0; i < 200; i++) {
      clockMs += 1000;
      const from = m.lastPrice;
      m.lastPrice = i % 2 === 0 ? 3_000 : 7_000;
      emu.state.printPriceMove(m, from);
    }
    const total = emu.state.tape.newestFirst(FIXTURES.binary).length;
    assert.ok(total > 1000, `more than a page of 1000 (${total})`);
    const before = await tapeRequests();

    const prints = await adapter.publicPrints(key, { afterSec: 0, limit: 10_000 });

    assert.equal(prints.length, total);
    assert.equal(new Set(prints.map((p) => p.id)).size, total);
    assert.equal((await tapeRequests()) - before, 2);
    const ts = prints.map((p) => p.timestamp);
    assert.deepEqual(
      ts,
      [...ts].sort((a, b) => a - b),
    );
  });

  it('when calls advance the watermark under a small limit, then every print comes exactly once', async () => {
    await moveEachSecond(FIXTURES.binary, [0.55, 0.3, 0.6, 0.45]);
    const all = await adapter.publicPrints(key, { afterSec: T0_SEC, limit: 1000 });
    const got: VenuePrint[] = [];
    let watermark = T0_SEC;
    for (;;) {
      const next = await adapter.publicPrints(key, { afterSec: watermark, limit: 5 });
      if (next.length === 0) break;
      assert.ok(next.every((p) => p.timestamp > watermark));
      got.push(...next);
      watermark = next.at(-1)!.timestamp;
    }
    assert.deepEqual(got, all);
  });
});
