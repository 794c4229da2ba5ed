import assert from 'node:assert/strict';
import { ClobClient, OrderType, Side } from '@polymarket/clob-client-v2';
import { Wallet } from 'ethers';
import { createWalletClient, custom } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { testContext } from '../support/context.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { managedTrader } from '../support/polymarket-traders.js';
import { newPolymarketEvent, polymarketAdmin } from '../support/venue-emulators.js';

/** `POST /api/sdk/copytrading/execute` against the Polymarket emulator (client-contract §12.2). */

interface PlanTrade {
  market_id: string;
  market_title: string;
  action: 'buy' | 'sell';
  side: 'yes' | 'no';
  shares: number;
  estimated_price: number;
  estimated_cost: number;
  whale_wallet: string;
  source_wallet: string;
  edge: number;
  confidence: number;
  whale_position_usd: number;
  reason: string;
  success?: boolean;
  trade_id?: string | null;
  error?: string | null;
}

interface Plan {
  success: boolean;
  wallets_analyzed: number;
  positions_found: number;
  conflicts_skipped: number;
  top_n_used: number;
  whale_exits_detected: number;
  trades_needed: number;
  trades_executed?: number;
  errors: string[];
  summary: string;
  trades: PlanTrade[];
}

const auth = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });

const copy = (agent: RegisteredAgent, body: Record<string, unknown>) =>
  api().post('/api/sdk/copytrading/execute').set(auth(agent)).send(body);

async function plan(agent: RegisteredAgent, body: Record<string, unknown>): Promise<Plan> {
  const res = await copy(agent, { max_usd_per_position: 50, venue: 'sim', ...body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as Plan;
}

const newWallet = () => Wallet.createRandom().address.toLowerCase();

/** A binary market on the emulator (YES at `yes`), not imported here: its condition id and tokens. */
async function venueMarket(yes: number) {
  const event = await newPolymarketEvent(['Yes', 'No'], [yes]);
  const m = event.markets[0]!;
  return {
    conditionId: m.condition_id,
    yes: m.token_ids[0]!,
    no: m.token_ids[1]!,
    title: event.markets[0]!.slug,
  };
}

/** Gives `wallet` `shares` of a token on the emulated chain (the Data API reads its positions from there). */
const hold = (wallet: string, token: string, shares: number) =>
  polymarketAdmin('POST', `/wallets/${wallet}/fund`, { tokens: { [token]: shares } });
const drop = (wallet: string, token: string) =>
  polymarketAdmin('POST', `/wallets/${wallet}/balances`, { tokens: { [token]: 0 } });

/** A wallet of its own on the emulated CLOB (no agent of ours): funded, approved, with CLOB credentials. */
async function clobWhale() {
  const wallet = Wallet.createRandom();
  await polymarketAdmin('POST', `/wallets/${wallet.address}/fund`, { pusd: 1000 });
  await polymarketAdmin('POST', `/wallets/${wallet.address}/approve`);
  const signer = createWalletClient({
    account: privateKeyToAccount(wallet.privateKey as `0x${string}`),
    transport: custom({ request: () => Promise.reject(new Error('no RPC in these tests')) }),
  });
  const host = testContext().polymarket.clobUrl;
  const creds = await new ClobClient({ host, chain: 137, signer }).createOrDeriveApiKey();
  return { address: wallet.address.toLowerCase(), clob: new ClobClient({ host, chain: 137, signer, creds }) };
}

const marketOf = (conditionId: string) =>
  testContext().deps.models.Market.findOne({ 'venueRef.externalId': conditionId }).lean();

async function simPositions(agent: RegisteredAgent) {
  const res = await api().get('/api/sdk/positions?venue=sim').set(auth(agent)).expect(200);
  return res.body.positions as {
    market_id: string;
    shares_yes: number;
    shares_no: number;
    sources: string[];
  }[];
}

const buyByHand = (agent: RegisteredAgent, marketId: string, side: 'yes' | 'no', amount: number) =>
  api()
    .post('/api/sdk/trade')
    .set(auth(agent))
    .send({ market_id: marketId, side, amount, venue: 'sim' })
    .expect(200)
    .then((r) => {
      assert.equal(r.body.success, true, JSON.stringify(r.body));
      return r.body;
    });

describe('Copytrading plans (POST /api/sdk/copytrading/execute) against the Polymarket emulator #integration', function () {
  this.timeout(120_000);
  let savedCache: number;
  before(() => {
    // The wallets' positions change within a test: read them afresh (the cache has its own test below).
    savedCache = testContext().deps.env.COPYTRADING_POSITIONS_CACHE_SECONDS;
    testContext().deps.env.COPYTRADING_POSITIONS_CACHE_SECONDS = 0;
  });
  after(() => {
    testContext().deps.env.COPYTRADING_POSITIONS_CACHE_SECONDS = savedCache;
  });

  it('when two wallets agree on one market, hold opposite sides of another and one holds a third alone, then the plan buys the agreed one in full, the lone one at half weight scaled by size, skips the conflict and imports the markets', async () => {
    const [agreed, lone, conflict] = [await venueMarket(0.6), await venueMarket(0.4), await venueMarket(0.5)];
    const [w1, w2] = [newWallet(), newWallet()];
    await hold(w1, agreed.yes, 200); // $120
    await hold(w2, agreed.yes, 100); // $60
    await hold(w1, lone.no, 100); // $60 of NO at 0.6
    await hold(w1, conflict.yes, 100);
    await hold(w2, conflict.no, 100);
    const agent = await registerAgent();

    const p = await plan(agent, { wallets: [w1, w2.toUpperCase().replace('0X', '0x')], dry_run: true });
    assert.equal(p.success, true, JSON.stringify(p));
    assert.equal(p.wallets_analyzed, 2);
    assert.equal(p.positions_found, 5);
    assert.equal(p.conflicts_skipped, 1);
    assert.equal(p.top_n_used, 50, 'a 10,000 $SIM balance copies the top 50');
    assert.equal(p.whale_exits_detected, 0);
    assert.equal(p.trades_needed, 2, JSON.stringify(p.trades));
    assert.equal(p.trades_executed, undefined);
    assert.deepEqual(p.errors, []);

    const [a, l] = p.trades;
    const agreedHere = await marketOf(agreed.conditionId);
    const loneHere = await marketOf(lone.conditionId);
    assert.ok(agreedHere && loneHere, 'both copied markets were imported on the spot');
    assert.equal(await marketOf(conflict.conditionId), null, 'the conflicting market is not imported');

    assert.equal(a!.market_id, agreedHere._id);
    assert.deepEqual([a!.action, a!.side, a!.reason], ['buy', 'yes', 'copy']);
    assert.equal(
      a!.estimated_cost,
      50,
      'both wallets hold it and it is the largest: the full max_usd_per_position',
    );
    assert.equal(a!.whale_wallet, w1, 'named by its largest holder');
    assert.equal(a!.source_wallet, w1);
    assert.equal(a!.whale_position_usd, 180);
    assert.equal(a!.confidence, 1);
    assert.equal(a!.edge, 0.75, '$180 of the $240 the wallets agree on');
    assert.ok(a!.estimated_price > 0.6 && a!.estimated_price < 0.62, String(a!.estimated_price));
    assert.ok(Math.abs(a!.shares * a!.estimated_price - 50) < 0.01);

    assert.equal(l!.market_id, loneHere._id);
    assert.deepEqual([l!.action, l!.side], ['buy', 'no']);
    // One wallet: half weight; $60 against the largest $180.
    assert.equal(l!.estimated_cost, 8.33);
    assert.equal(l!.confidence, 0.1667);

    assert.deepEqual(await simPositions(agent), [], 'a dry run trades nothing');
  });

  it('when dry_run is false, then each trade goes through the trade path and a retried call places nothing twice', async () => {
    const [m1, m2] = [await venueMarket(0.55), await venueMarket(0.3)];
    const w = newWallet();
    await hold(w, m1.yes, 400);
    await hold(w, m2.yes, 300);
    const agent = await registerAgent();
    const body = { wallets: [w], dry_run: false };

    // Two calls at once (a client retrying while the first still runs): the same plan, the same keys.
    const [first, second] = await Promise.all([plan(agent, body), plan(agent, body)]);
    for (const p of [first, second]) assert.equal(p.trades_needed, 2, JSON.stringify(p));
    assert.equal(first.trades_executed! + second.trades_executed! >= 2, true);
    const traded = new Set(
      [...first.trades, ...second.trades].filter((t) => t.success).map((t) => t.trade_id),
    );
    assert.equal(
      traded.size,
      2,
      `one trade per market, whichever call placed it: ${JSON.stringify([first, second])}`,
    );
    const recorded = await testContext().deps.models.Trade.find({ agentId: agent.agent_id }).lean();
    assert.equal(recorded.length, 2);
    for (const t of recorded) {
      assert.equal(t.source, 'sdk:copytrading');
      assert.equal((t.signalData as { whale_wallet: string }).whale_wallet, w);
      assert.match(t.idempotencyKey ?? '', /^copytrading:/);
    }

    const positions = await simPositions(agent);
    const m1Id = (await marketOf(m1.conditionId))!._id;
    const mine = positions.find((p) => p.market_id === m1Id);
    const bought = first.trades.find((t) => t.market_id === m1Id)!;
    assert.ok(mine, JSON.stringify(positions));
    assert.ok(
      Math.abs(mine.shares_yes - bought.shares) < 1e-4,
      `${mine.shares_yes} against ${bought.shares}`,
    );
    assert.deepEqual(mine.sources, ['sdk:copytrading']);

    // Once in line, the next plan has nothing left to do.
    const again = await plan(agent, body);
    assert.equal(again.trades_needed, 0, JSON.stringify(again.trades));
    assert.equal(again.trades_executed, 0);
  });

  it('when a copied wallet leaves a market, then its copy is sold (also buy-only), while a position bought by hand or copied from another wallet stays', async () => {
    const [kept, left, byHand, other] = [
      await venueMarket(0.5),
      await venueMarket(0.45),
      await venueMarket(0.5),
      await venueMarket(0.5),
    ];
    const [w, x] = [newWallet(), newWallet()];
    await hold(w, kept.yes, 100);
    await hold(w, left.yes, 100);
    await hold(x, other.yes, 100);
    const agent = await registerAgent();
    const copied = await plan(agent, { wallets: [w], dry_run: false });
    assert.equal(copied.trades_executed, 2, JSON.stringify(copied));
    assert.equal((await plan(agent, { wallets: [x], dry_run: false })).trades_executed, 1);
    await buyByHand(agent, (await marketOf(other.conditionId))!._id, 'yes', 5);
    // A market the wallet never held, bought by hand: imported by the plan of another wallet below.
    const y = newWallet();
    await hold(y, byHand.yes, 100);
    await plan(agent, { wallets: [y], dry_run: true });
    await buyByHand(agent, (await marketOf(byHand.conditionId))!._id, 'yes', 5);

    await drop(w, left.yes);
    const leftId = (await marketOf(left.conditionId))!._id;
    const before = (await simPositions(agent)).find((p) => p.market_id === leftId)!;

    const noExits = await plan(agent, { wallets: [w], dry_run: true, detect_whale_exits: false });
    assert.equal(noExits.whale_exits_detected, 0);
    assert.deepEqual(noExits.trades, []);

    const exits = await plan(agent, {
      wallets: [w],
      dry_run: false,
      buy_only: true,
      detect_whale_exits: true,
    });
    assert.equal(exits.whale_exits_detected, 1, JSON.stringify(exits));
    assert.equal(exits.trades.length, 1, JSON.stringify(exits.trades));
    const sale = exits.trades[0]!;
    assert.deepEqual(
      [sale.market_id, sale.action, sale.side, sale.reason],
      [leftId, 'sell', 'yes', 'whale_exit'],
    );
    assert.equal(sale.shares, before.shares_yes);
    assert.equal(sale.whale_wallet, w);
    assert.equal(sale.success, true, JSON.stringify(sale));
    const after = await simPositions(agent);
    assert.equal(after.find((p) => p.market_id === leftId)?.shares_yes ?? 0, 0);
    // The copy from x and the hand-bought position are untouched.
    const otherId = (await marketOf(other.conditionId))!._id;
    assert.ok((after.find((p) => p.market_id === otherId)?.shares_yes ?? 0) > 0);
    const byHandId = (await marketOf(byHand.conditionId))!._id;
    assert.ok((after.find((p) => p.market_id === byHandId)?.shares_yes ?? 0) > 0);
  });

  it('when buy_only is false, then what is over target or on the other side is sold, and with buy_only it is left alone', async () => {
    const m = await venueMarket(0.5);
    const w = newWallet();
    await hold(w, m.yes, 100);
    const agent = await registerAgent();
    await plan(agent, { wallets: [w], dry_run: true }); // imports it
    const id = (await marketOf(m.conditionId))!._id;
    await buyByHand(agent, id, 'no', 10);
    await buyByHand(agent, id, 'yes', 80);

    const buyOnly = await plan(agent, {
      wallets: [w],
      dry_run: true,
      max_usd_per_position: 20,
      buy_only: true,
    });
    assert.deepEqual(buyOnly.trades, [], 'over target already, and buy-only sells nothing');

    const full = await plan(agent, {
      wallets: [w],
      dry_run: true,
      max_usd_per_position: 20,
      buy_only: false,
    });
    const held = (await simPositions(agent)).find((p) => p.market_id === id)!;
    const bySide = Object.fromEntries(full.trades.map((t) => [t.side, t]));
    assert.deepEqual(
      full.trades.map((t) => [t.action, t.side, t.reason]),
      [
        ['sell', 'no', 'opposite_side'],
        ['sell', 'yes', 'rebalance'],
      ],
    );
    assert.equal(bySide.no!.shares, held.shares_no);
    // Target $10 (one wallet: half of max_usd_per_position) at the wallet's price 0.5.
    const overShares = held.shares_yes - 10 / 0.5;
    assert.ok(
      Math.abs(bySide.yes!.shares - overShares) < 1e-4,
      `${bySide.yes!.shares} against ${overShares}`,
    );
  });

  it('when top_n, market_ids and max_trades are given, then the plan keeps to them', async () => {
    const markets = [await venueMarket(0.5), await venueMarket(0.5), await venueMarket(0.5)];
    const w = newWallet();
    await hold(w, markets[0]!.yes, 300);
    await hold(w, markets[1]!.yes, 200);
    await hold(w, markets[2]!.yes, 100);
    const agent = await registerAgent();
    const top2 = await plan(agent, { wallets: [w], top_n: 2 });
    assert.equal(top2.top_n_used, 2);
    const ids = await Promise.all(markets.map(async (m) => (await marketOf(m.conditionId))?._id));
    assert.deepEqual(
      top2.trades.map((t) => t.market_id),
      ids.slice(0, 2),
      'the two largest, largest first',
    );
    assert.equal(ids[2], undefined, 'a market beyond top_n is not imported');

    const capped = await plan(agent, { wallets: [w], max_trades: 1 });
    assert.equal(capped.trades.length, 1);
    assert.equal(capped.trades[0]!.market_id, ids[0]);
    assert.ok(
      capped.errors.some((e) => /max_trades 1/.test(e)),
      JSON.stringify(capped.errors),
    );

    const only = await plan(agent, { wallets: [w], market_ids: [ids[1]] });
    assert.deepEqual(
      only.trades.map((t) => t.market_id),
      [ids[1]],
    );
  });

  it('when the wallets’ positions are cached, then a change shows only once the cache has expired', async () => {
    const [m1, m2] = [await venueMarket(0.5), await venueMarket(0.5)];
    const w = newWallet();
    await hold(w, m1.yes, 100);
    const agent = await registerAgent();
    testContext().deps.env.COPYTRADING_POSITIONS_CACHE_SECONDS = 30;
    try {
      assert.equal((await plan(agent, { wallets: [w] })).positions_found, 1);
      await hold(w, m2.yes, 100);
      assert.equal((await plan(agent, { wallets: [w] })).positions_found, 1, 'read from the cache');
    } finally {
      testContext().deps.env.COPYTRADING_POSITIONS_CACHE_SECONDS = 0;
    }
    assert.equal((await plan(agent, { wallets: [w] })).positions_found, 2);
  });

  it('when a whale buys through the CLOB with its own wallet, then the plan copies what the match gave it', async () => {
    const m = await venueMarket(0.5);
    const whale = await clobWhale();
    const order = await whale.clob.createMarketOrder({
      tokenID: m.yes,
      amount: 60,
      side: Side.BUY,
      price: 0.7,
    });
    const posted = await whale.clob.postOrder(order, OrderType.FOK);
    assert.equal(posted.success, true, JSON.stringify(posted));
    const agent = await registerAgent();

    const p = await plan(agent, { wallets: [whale.address] });
    assert.equal(p.positions_found, 1, JSON.stringify(p));
    assert.equal(p.trades.length, 1, JSON.stringify(p));
    const t = p.trades[0]!;
    assert.equal(t.market_id, (await marketOf(m.conditionId))!._id);
    assert.deepEqual([t.action, t.side, t.whale_wallet], ['buy', 'yes', whale.address]);
    assert.equal(t.estimated_cost, 25, 'one wallet: half of max_usd_per_position');
    assert.ok(t.whale_position_usd > 50 && t.whale_position_usd < 70, String(t.whale_position_usd));
  });

  it('when the agent copies onto the wallets’ own venue, then the plan is priced on its book and executed from the owner’s wallet, and an unclaimed agent is told to claim', async () => {
    const m = await venueMarket(0.55);
    const w = newWallet();
    await hold(w, m.yes, 200);
    const { agent } = await managedTrader();

    const planned = await plan(agent, { wallets: [w], venue: 'polymarket' });
    assert.equal(planned.trades.length, 1, JSON.stringify(planned));
    assert.deepEqual([planned.trades[0]!.action, planned.trades[0]!.side], ['buy', 'yes']);
    assert.equal(planned.trades[0]!.estimated_cost, 25);

    const done = await plan(agent, { wallets: [w], venue: 'polymarket', dry_run: false });
    assert.equal(done.trades_executed, 1, JSON.stringify(done));
    const id = (await marketOf(m.conditionId))!._id;
    const position = await testContext()
      .deps.models.Position.findOne({ agentId: agent.agent_id, marketId: id })
      .lean();
    assert.equal(position?.venue, 'polymarket');
    assert.ok((position?.sharesYesMicro ?? 0) > 0, JSON.stringify(position));
    // The sim book knows nothing of it: copying onto sim would buy again.
    const onSim = await plan(agent, { wallets: [w], venue: 'sim' });
    assert.equal(onSim.trades.length, 1);
    const again = await plan(agent, { wallets: [w], venue: 'polymarket' });
    assert.deepEqual(again.trades, [], JSON.stringify(again));

    const unclaimed = await registerAgent();
    const refused = await copy(unclaimed, { wallets: [w], venue: 'polymarket', max_usd_per_position: 50 });
    assert.equal(refused.status, 403, JSON.stringify(refused.body));
    assert.ok(refused.body.fix, JSON.stringify(refused.body));
  });

  it('when the venue cannot answer for a wallet, then the plan says so, and checks no exits from what it does not know', async () => {
    const m = await venueMarket(0.5);
    const w = newWallet();
    await hold(w, m.yes, 100);
    const agent = await registerAgent();
    // The read and its one retry (VENUE_RETRIES=1) fail; fewer than the breaker's 5 failures.
    await polymarketAdmin('POST', '/faults', { mode: '500', path_prefix: '/data/positions', count: 2 });
    try {
      const p = await plan(agent, { wallets: [w], detect_whale_exits: true });
      assert.equal(p.success, false, JSON.stringify(p));
      assert.equal(p.wallets_analyzed, 0);
      assert.deepEqual(p.trades, []);
      assert.ok(
        p.errors.some((e) => e.startsWith(`The positions of ${w} could not be read`)),
        JSON.stringify(p.errors),
      );
      assert.ok(
        p.errors.some((e) => e.startsWith('Whale exits not checked')),
        JSON.stringify(p.errors),
      );
    } finally {
      await polymarketAdmin('DELETE', '/faults');
    }
    assert.equal((await plan(agent, { wallets: [w] })).success, true);
  });

  it('when a request is malformed or names another venue, then it answers 422 with a fix', async () => {
    const agent = await registerAgent();
    const cases: [Record<string, unknown>, string][] = [
      [{ wallets: ['0x123'] }, 'wallets'],
      [{ wallets: [] }, 'wallets'],
      [{ wallets: [newWallet()], max_usd_per_position: 0 }, 'max_usd_per_position'],
      [{ wallets: [newWallet()], top_n: 0 }, 'top_n'],
      [{ wallets: Array.from({ length: 21 }, newWallet) }, 'wallets'],
      [{ wallets: [newWallet()], venue: 'kalshi' }, 'venue'],
    ];
    for (const [body, field] of cases) {
      const res = await copy(agent, body);
      assert.equal(res.status, 422, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.ok(res.body.fix, JSON.stringify(res.body));
      assert.ok(
        (res.body.detail as { loc: string[] }[]).some((d) => d.loc.includes(field)),
        JSON.stringify(res.body),
      );
    }
    const anonymous = await api()
      .post('/api/sdk/copytrading/execute')
      .send({ wallets: [newWallet()] });
    assert.equal(anonymous.status, 401);
  });
});
