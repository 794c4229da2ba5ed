import assert from 'node:assert/strict';
import { startPolymarketEmulator, type MarketRecord, type PolymarketEmulator } from './polymarket/index.js';

// The Polymarket emulator's public trades (Data API `GET /trades`): the emulated crowd prints
// trades as an admin price move happens, in the real API's camelCase shape, newest first, with its
// query parameters. Fills of orders matched on the emulated CLOB are covered with the official
// client in polymarket-trading.emulator.test.ts.

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);

describe('Polymarket emulator: public trades (Data API /trades)', () => {
  let clockMs = T0;
  let emu: PolymarketEmulator;

  const get = async (path: string): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${emu.dataUrl}${path}`);
    return { status: res.status, body: await res.json() };
  };
  const trades = async (query: string): Promise<Json[]> => {
    const res = await get(`/trades?${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as Json[];
  };
  const movePrice = async (m: MarketRecord, yes: number) => {
    const res = await fetch(`${emu.adminUrl}/markets/${m.conditionId}/price`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ yes }),
    });
    assert.equal(res.status, 200, await res.text());
  };
  const newMarket = (title = `Prints ${Math.random()}`): MarketRecord => {
    const [m] = emu.state.createEvent({ title, prices: [0.5] }).markets;
    return m!;
  };
  /** A row's YES price and side: a trade of the NO token is the opposite trade of YES. */
  const yesView = (row: Json) =>
    row.outcomeIndex === 0
      ? { price: row.price, side: row.side }
      : { price: Number((1 - row.price).toFixed(6)), side: row.side === 'BUY' ? 'SELL' : 'BUY' };

  before(async () => {
    emu = await startPolymarketEmulator({ now: () => clockMs });
  });
  after(async () => {
    await emu.close();
  });
  beforeEach(() => {
    clockMs = T0;
  });

  it('when an admin moves a price up, then the crowd prints buys of YES walking to the new price, newest first, in the real shape', async () => {
    const m = newMarket();
    assert.deepEqual(await trades(`market=${m.conditionId}`), [], 'no prints before anything traded');

    await movePrice(m, 0.58);
    const rows = await trades(`market=${m.conditionId}`);

    assert.ok(
      rows.length >= 2 && rows.length <= 6,
      `a move of 8 ticks prints a few trades, got ${rows.length}`,
    );
    const row = rows[0];
    assert.deepEqual(Object.keys(row).sort(), [
      'asset',
      'bio',
      'conditionId',
      'eventSlug',
      'icon',
      'name',
      'outcome',
      'outcomeIndex',
      'price',
      'profileImage',
      'profileImageOptimized',
      'proxyWallet',
      'pseudonym',
      'side',
      'size',
      'slug',
      'timestamp',
      'title',
      'transactionHash',
    ]);
    assert.match(row.proxyWallet, /^0x[0-9a-f]{40}$/);
    assert.match(row.transactionHash, /^0x[0-9a-f]{64}$/);
    assert.equal(row.conditionId, m.conditionId);
    assert.equal(row.asset, m.tokenIds[row.outcomeIndex]);
    assert.equal(row.outcome, m.outcomes[row.outcomeIndex]);
    assert.equal(row.slug, m.slug);
    assert.equal(row.timestamp, Math.floor(T0 / 1000), 'Unix seconds of the move');
    assert.equal(typeof row.size, 'number');
    assert.ok(row.pseudonym.length > 0);
    assert.deepEqual(yesView(row), { price: 0.58, side: 'BUY' }, 'the newest print is at the new price');
    for (const r of rows) assert.equal(yesView(r).side, 'BUY', 'every taker pushed YES up');
    const prices = rows.map((r) => yesView(r).price);
    assert.deepEqual(
      prices,
      [...prices].sort((a, b) => b - a),
      'newest first: the walk from 0.50 up reads downwards',
    );
    assert.ok(prices.every((p) => p > 0.5 && p <= 0.58));
  });

  it('when the same move is replayed after a reset (same seed), then the same prints come back', async () => {
    const m = newMarket('Deterministic prints');
    await movePrice(m, 0.41);
    const first = await trades(`market=${m.conditionId}`);

    await fetch(`${emu.adminUrl}/reset`, { method: 'POST' });
    const again = newMarket('Deterministic prints');
    await movePrice(again, 0.41);

    assert.deepEqual(await trades(`market=${again.conditionId}`), first);
    assert.ok(
      first.every((r) => yesView(r).side === 'SELL'),
      'a move down is sold',
    );
  });

  it('when prints are paged with limit and offset, then the pages are consecutive slices of the newest-first tape', async () => {
    const m = newMarket();
    for (const yes of [0.6, 0.52, 0.7, 0.45]) {
      clockMs += 1_000;
      await movePrice(m, yes);
    }
    const all = await trades(`market=${m.conditionId}&limit=1000`);
    const timestamps = all.map((r) => r.timestamp);
    assert.deepEqual(
      timestamps,
      [...timestamps].sort((a, b) => b - a),
    );

    const page1 = await trades(`market=${m.conditionId}&limit=3&offset=0`);
    const page2 = await trades(`market=${m.conditionId}&limit=3&offset=3`);
    assert.deepEqual([...page1, ...page2], all.slice(0, 6));
  });

  it('when markets, events, sides, makers and sizes are filtered, then only matching rows come back', async () => {
    const a = newMarket();
    const b = newMarket();
    await movePrice(a, 0.6);
    await movePrice(b, 0.4);

    const both = await trades(`market=${a.conditionId},${b.conditionId}`);
    assert.deepEqual(new Set(both.map((r) => r.conditionId)), new Set([a.conditionId, b.conditionId]));
    const ofEvent = await trades(`eventId=${a.eventId}`);
    assert.ok(ofEvent.length > 0 && ofEvent.every((r) => r.conditionId === a.conditionId));
    const sells = await trades(`market=${a.conditionId},${b.conditionId}&side=SELL`);
    assert.ok(sells.every((r) => r.side === 'SELL'));

    const takers = await trades(`market=${a.conditionId}`);
    const withMakers = await trades(`market=${a.conditionId}&takerOnly=false`);
    assert.equal(withMakers.length, 2 * takers.length, 'each crowd fill has one maker row');

    const wallet = takers[0].proxyWallet as string;
    const ofUser = await trades(`user=${wallet}&market=${a.conditionId}`);
    assert.ok(ofUser.length > 0 && ofUser.every((r) => r.proxyWallet === wallet));

    const floor = Math.min(...takers.map((r) => r.size * r.price)) + 0.001;
    const big = await trades(`market=${a.conditionId}&filterType=CASH&filterAmount=${floor}`);
    assert.ok(big.length < takers.length && big.every((r) => r.size * r.price >= floor));
  });

  it('when the query is out of bounds or inconsistent, then the Data API answers 400', async () => {
    const m = newMarket();
    for (const q of [
      'limit=10001',
      'offset=10001',
      `market=${m.conditionId}&eventId=${m.eventId}`,
      'side=UP',
      'takerOnly=maybe',
      'filterType=CASH',
      'user=0x123',
    ]) {
      assert.equal((await get(`/trades?${q}`)).status, 400, q);
    }
  });

  it('when a market prints more than its cap, then only the newest fills are kept', async () => {
    const small = await startPolymarketEmulator({ now: () => clockMs, tapeCapPerMarket: 5 });
    try {
      const [m] = small.state.createEvent({ title: 'Capped tape', prices: [0.5] }).markets;
      for (const yes of [0.6, 0.4, 0.7, 0.3]) small.state.setPrice(m!, yes);
      const res = await fetch(`${small.dataUrl}/trades?market=${m!.conditionId}&limit=100`);
      const rows = (await res.json()) as Json[];
      assert.equal(rows.length, 5);
      assert.equal(yesView(rows[0]).price, 0.3, 'the newest print survives');
    } finally {
      await small.close();
    }
  });
});
