import assert from 'node:assert/strict';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import {
  FIXTURES,
  USDC_MINT,
  marketAccounts,
  startKalshiEmulator,
  type KalshiEmulator,
} from './kalshi/index.js';

// The Kalshi emulator's public trades tape (`GET /markets/trades`, kalshi.md §1.2): the emulated
// crowd prints trades as an admin price move happens, DFlow fills print as Kalshi trades, in the
// real fields (current and legacy wire), newest first, with `min_ts`/`max_ts`, `limit` and a cursor.

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const T0 = Date.UTC(2026, 10, 27, 12, 0, 0);
const alice = Keypair.fromSeed(new Uint8Array(32).fill(1));
const ALICE = alice.publicKey.toBase58();

describe('Kalshi emulator: public trades (/markets/trades)', () => {
  let clockMs = T0;
  let emu: KalshiEmulator;

  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(url, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const admin = async (path: string, body: unknown = {}) => {
    const res = await call('POST', `${emu.adminUrl}${path}`, body);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };
  const tape = async (query: string): Promise<{ trades: Json[]; cursor: string }> => {
    const res = await call('GET', `${emu.kalshiUrl}/markets/trades?${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body;
  };

  before(async () => {
    emu = await startKalshiEmulator({ now: () => clockMs });
  });
  after(async () => {
    await emu.close();
  });
  beforeEach(async () => {
    clockMs = T0;
    await admin('/reset');
  });

  it('when an admin moves a price up, then the crowd prints YES-taker trades walking to the new price, newest first, in the real fields', async () => {
    assert.deepEqual(await tape(`ticker=${FIXTURES.binary}`), { trades: [], cursor: '' });

    await admin(`/markets/${FIXTURES.binary}/price`, { yes: 0.5 });
    const { trades, cursor } = await tape(`ticker=${FIXTURES.binary}`);

    assert.equal(cursor, '');
    assert.ok(
      trades.length >= 2 && trades.length <= 6,
      `a 8-cent move prints a few trades, got ${trades.length}`,
    );
    const t = trades[0];
    assert.deepEqual(Object.keys(t).sort(), [
      'count_fp',
      'created_time',
      'no_price_dollars',
      'taker_side',
      'ticker',
      'trade_id',
      'yes_price_dollars',
    ]);
    assert.match(t.trade_id, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.equal(t.ticker, FIXTURES.binary);
    assert.equal(t.created_time, new Date(T0).toISOString());
    assert.equal(t.yes_price_dollars, '0.5000', 'the newest trade is at the new price');
    assert.equal(t.no_price_dollars, '0.5000');
    assert.match(t.count_fp, /^\d+\.00$/);
    assert.ok(
      trades.every((x) => x.taker_side === 'yes'),
      'pushing YES up is buying YES',
    );
    const prices = trades.map((x) => Number(x.yes_price_dollars));
    assert.deepEqual(
      prices,
      [...prices].sort((a, b) => b - a),
      'newest first: the walk up reads downwards',
    );
    assert.equal(new Set(trades.map((x) => x.trade_id)).size, trades.length);
  });

  it('when a market is on the legacy wire, then its trades carry integer count and cent prices', async () => {
    await admin(`/markets/${FIXTURES.legacy}/price`, { yes: 0.2 });
    const [t] = (await tape(`ticker=${FIXTURES.legacy}`)).trades;
    assert.equal(t.taker_side, 'no', 'pushing YES down is buying NO');
    assert.equal(t.yes_price, 20);
    assert.equal(t.no_price, 80);
    assert.equal(typeof t.count, 'number');
    assert.equal(t.yes_price_dollars, undefined);
  });

  it('when trades are paged with limit and cursor, or bounded by min_ts/max_ts, then pages chain without gaps or repeats', async () => {
    for (const yes of [0.6, 0.3, 0.7]) {
      clockMs += 10_000;
      await admin(`/markets/${FIXTURES.binary}/price`, { yes });
    }
    const all = (await tape(`ticker=${FIXTURES.binary}&limit=1000`)).trades;
    const paged: Json[] = [];
    let cursor = '';
    do {
      const page = await tape(`ticker=${FIXTURES.binary}&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      assert.ok(page.trades.length <= 2);
      paged.push(...page.trades);
      cursor = page.cursor;
    } while (cursor);
    assert.deepEqual(paged, all);

    const second = Math.floor((T0 + 20_000) / 1000);
    const window = (await tape(`ticker=${FIXTURES.binary}&min_ts=${second}&max_ts=${second}`)).trades;
    assert.ok(window.length > 0);
    assert.ok(window.every((t) => t.created_time === new Date(T0 + 20_000).toISOString()));
    assert.equal((await call('GET', `${emu.kalshiUrl}/markets/trades?limit=1001`)).status, 400);
    assert.equal((await call('GET', `${emu.kalshiUrl}/markets/trades?cursor=nope`)).status, 400);
  });

  it('when a DFlow buy fills, then the fill prints as a Kalshi trade of the YES taker at the price paid', async () => {
    await admin(`/kyc/${ALICE}`);
    await admin(`/wallets/${ALICE}/fund`, { usdc: 100, sol: 1 });
    const q = new URLSearchParams({
      inputMint: USDC_MINT,
      outputMint: marketAccounts(FIXTURES.binary, USDC_MINT).yesMint,
      amount: '5000000',
      userPublicKey: ALICE,
    });
    const order = (await call('GET', `${emu.dflowTradeUrl}/order?${q}`)).body;
    const tx = VersionedTransaction.deserialize(Buffer.from(order.transaction, 'base64'));
    tx.sign([alice]);
    const sent = await call('POST', emu.rpcUrl, {
      jsonrpc: '2.0',
      id: 1,
      method: 'sendTransaction',
      params: [Buffer.from(tx.serialize()).toString('base64'), { encoding: 'base64' }],
    });
    assert.ok(sent.body.result, JSON.stringify(sent.body));
    await admin('/orders/fill-now');

    const [t] = (await tape(`ticker=${FIXTURES.binary}`)).trades;
    assert.deepEqual(
      [t.taker_side, t.count_fp, t.yes_price_dollars, t.no_price_dollars],
      ['yes', '11.00', '0.4300', '0.5700'],
    );
  });

  it('when a market prints more than its cap, then only its newest trades are kept', async () => {
    const small = await startKalshiEmulator({ now: () => clockMs, tapeCapPerMarket: 4 });
    try {
      const m = small.state.markets.get(FIXTURES.binary)!;
      for (const yes of [5_000, 3_000, 7_000]) {
        const from = m.lastPrice;
        m.lastPrice = yes;
        small.state.printPriceMove(m, from);
      }
      const res = await fetch(`${small.kalshiUrl}/markets/trades?ticker=${FIXTURES.binary}`);
      const { trades } = (await res.json()) as { trades: Json[] };
      assert.equal(trades.length, 4);
      assert.equal(trades[0].yes_price_dollars, '0.7000');
    } finally {
      await small.close();
    }
  });
});
