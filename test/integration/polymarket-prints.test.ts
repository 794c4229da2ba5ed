import assert from 'node:assert/strict';
import { Registry } from 'prom-client';
import { PolymarketAdapter } from '../../shared/domains/venues/polymarket/polymarket-adapter.js';
import type { VenueMarketKey, VenuePrint } from '../../shared/domains/venues/venue-adapter.js';
import { createVenueMetrics } from '../../shared/infra/http/venue-metrics.js';
import { createLogger } from '../../shared/infra/logger.js';
import {
  startPolymarketEmulator,
  type MarketRecord,
  type PolymarketEmulator,
} from '../emulators/polymarket/index.js';

// The Polymarket adapter's publicPrints (the venue seam's public trades) against the emulator's
// Data API `/trades`: strictly after the watermark, oldest first, normalised to YES, paged back
// through the newest-first tape, and never repeating a print across calls that advance the
// watermark. Prices move on the emulator's own clock, one move per second.

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const T0 = Date.UTC(2026, 10, 27, 9, 0, 0);
const T0_SEC = T0 / 1000;

describe('polymarket adapter: public prints #integration', function () {
  let clockMs = T0;
  let emu: PolymarketEmulator;
  let adapter: PolymarketAdapter;

  const keyOf = (m: MarketRecord): VenueMarketKey => ({
    externalId: m.conditionId,
    yesTokenId: m.tokenIds[0],
    noTokenId: m.tokenIds[1],
  });
  const newMarket = (): MarketRecord =>
    emu.state.createEvent({ title: `Prints ${Math.random()}` }).markets[0]!;
  /** One price move per emulator second, starting one second after T0. */
  const moveEachSecond = (m: MarketRecord, prices: number[]) => {
    for (const yes of prices) {
      clockMs += 1000;
      emu.state.setPrice(m, yes);
    }
  };
  const dataRequests = async () =>
    ((await (await fetch(`${emu.adminUrl}/requests`)).json()) as { path: string }[]).filter(
      (r) => r.path === '/data/trades',
    ).length;

  before(async () => {
    emu = await startPolymarketEmulator({ now: () => clockMs });
  });
  after(async () => {
    await emu?.close();
  });
  beforeEach(async () => {
    clockMs = T0;
    await fetch(`${emu.adminUrl}/reset`, { method: 'POST' });
    adapter = new PolymarketAdapter({
      gammaUrl: emu.gammaUrl,
      clobUrl: emu.clobUrl,
      dataUrl: emu.dataUrl,
      timeoutMs: 2000,
      retries: 1,
      backoffMs: 5,
      breakerFailures: 5,
      breakerCooldownMs: 30_000,
      metrics: createVenueMetrics(new Registry()),
      log: createLogger('silent', 'test'),
    });
  });

  it('when prices moved, then the prints strictly after the watermark come oldest first, each the YES view of a Data API row', async () => {
    const m = newMarket();
    moveEachSecond(m, [0.62, 0.55, 0.7, 0.4]);
    const rows = (await (
      await fetch(`${emu.dataUrl}/trades?market=${m.conditionId}&limit=1000`)
    ).json()) as Json[];

    const prints = await adapter.publicPrints(keyOf(m), { afterSec: T0_SEC + 1, limit: 1000 });

    const later = rows.filter((r) => r.timestamp > T0_SEC + 1).reverse();
    assert.equal(prints.length, later.length);
    assert.ok(prints.every((p) => p.timestamp > T0_SEC + 1));
    assert.deepEqual(
      prints.map((p) => p.timestamp),
      later.map((r) => r.timestamp),
      'oldest first',
    );
    prints.forEach((p, i) => {
      const row = later[i];
      const onNo = row.asset === m.tokenIds[1];
      assert.equal(p.yesPrice, onNo ? Number((1 - row.price).toFixed(6)) : row.price);
      assert.equal(p.side, onNo ? (row.side === 'BUY' ? 'SELL' : 'BUY') : row.side);
      assert.equal(p.shares, row.size);
      assert.equal(p.usd, Number((row.size * row.price).toFixed(6)), 'USD at the traded token’s own price');
      assert.equal(p.transactionHash, row.transactionHash);
      assert.equal(p.taker, row.proxyWallet);
    });
    assert.deepEqual(
      await adapter.publicPrints({ externalId: m.conditionId }, { afterSec: T0_SEC + 1, limit: 1000 }),
      prints,
      'without token ids on the key, outcomeIndex tells NO apart',
    );
    const noPrint = prints.findIndex((_, i) => later[i].outcomeIndex === 1);
    assert.ok(noPrint >= 0, 'the seeded crowd traded the NO token at least once');
    // The last move took YES down from 0.70 to 0.40: on either token, the taker sold YES.
    const lastMove = prints.filter((p) => p.timestamp === T0_SEC + 4);
    assert.ok(lastMove.every((p) => p.side === 'SELL' && p.yesPrice < 0.7 && p.yesPrice >= 0.4));
    assert.equal(lastMove.at(-1)!.yesPrice, 0.4, 'the move ends at the new price');
  });

  it('when more prints than one Data API page wait, then the adapter pages back and answers all of them once', async () => {
    const m = newMarket();
    moveEachSecond(
      m,
      Array.from({ length: 120 }, (_, i) => (i % 2 === 0 ? 0.3 : 0.7)),
    );
    const total = emu.state.tape.newestFirst([m.conditionId]).length;
    assert.ok(total > 500, `more than a page of 500 (${total})`);
    const before = await dataRequests();

    const prints = await adapter.publicPrints(keyOf(m), { afterSec: 0, limit: 10_000 });

    assert.equal(prints.length, total);
    assert.equal(new Set(prints.map((p) => p.id)).size, total, 'ids are distinct');
    assert.equal((await dataRequests()) - before, 2);
    const ts = prints.map((p) => p.timestamp);
    assert.deepEqual(
      ts,
      [...ts].sort((a, b) => a - b),
    );
  });

  it('when the limit cuts inside a second, then the answer stops at the second before and the next call from its watermark repeats nothing', async () => {
    const m = newMarket();
    moveEachSecond(m, [0.6, 0.45, 0.65, 0.35, 0.55]);
    const all = await adapter.publicPrints(keyOf(m), { afterSec: T0_SEC, limit: 1000 });
    const perSecond = (ps: VenuePrint[], sec: number) => ps.filter((p) => p.timestamp === sec).length;
    const limit = perSecond(all, T0_SEC + 1) + 1;

    const first = await adapter.publicPrints(keyOf(m), { afterSec: T0_SEC, limit });
    assert.deepEqual(first, all.slice(0, perSecond(all, T0_SEC + 1)), 'whole seconds only');

    const got: VenuePrint[] = [...first];
    let watermark = first.at(-1)!.timestamp;
    for (;;) {
      const next = await adapter.publicPrints(keyOf(m), { afterSec: watermark, limit });
      if (next.length === 0) break;
      assert.ok(next.length <= limit || new Set(next.map((p) => p.timestamp)).size === 1);
      got.push(...next);
      watermark = next.at(-1)!.timestamp;
    }
    assert.deepEqual(got, all, 'nothing lost, nothing repeated');
  });

  it('when the key is not a condition id, then nothing is fetched', async () => {
    const before = await dataRequests();
    assert.deepEqual(
      await adapter.publicPrints({ externalId: 'not-a-condition' }, { afterSec: 0, limit: 10 }),
      [],
    );
    assert.equal(await dataRequests(), before);
  });
});
