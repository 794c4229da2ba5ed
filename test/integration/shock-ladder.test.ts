import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { ReactorSignalRecord } from '../../shared/domains/reactor/reactor-signal.model.js';
import { readReactorEventsAfter } from '../../shared/domains/reactor/reactor-event-stream.js';
import { appendPrints, tapeDirs } from '../../shared/domains/tapes/tape-store.js';
import type { TapePrintRow } from '../../shared/domains/tapes/tape-columns.js';
import { syncExternalPrices } from '../../shared/domains/venue-sync/sync-external-prices.js';
import { testContext } from '../support/context.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { polymarketAdmin, polymarketEventUrl } from '../support/venue-emulators.js';

/**
 * Shock signals (issue 38, item 1): the venue price refresh watches live imported sports markets;
 * a sharp drop becomes one `shock_ladder` signal on the Reactor feed of each agent whose
 * shock-ladder config is enabled, with the depth percentiles of comparable past drops on the
 * recorded tapes (client-contract §12.1). Drops are made on the emulated venue's admin price door.
 */
const as = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });
const config = (a: RegisteredAgent, body?: Record<string, unknown>) =>
  body
    ? api().patch('/api/sdk/shock-ladder/config').set(as(a)).send(body)
    : api().get('/api/sdk/shock-ladder/config').set(as(a));

interface ShockSignal {
  type: string;
  signal_id: string;
  shock_id: string;
  market_id: string;
  side: string;
  pre_price: number;
  shock_price: number;
  bucket_key: string;
  percentile_depths: Record<string, number>;
  depth_source: string;
  observed_count: number;
  expires_at: string;
}
const pending = async (a: RegisteredAgent) => {
  const res = await api().get('/api/sdk/reactor/pending').set(as(a)).expect(200);
  return res.body.reactor_signals as (ShockSignal & { tx_hash?: string })[];
};
const shocksOf = async (a: RegisteredAgent) => (await pending(a)).filter((s) => s.type === 'shock_ladder');

let tick = 0;
const syncPrices = async () => {
  const reports = await syncExternalPrices(testContext().deps, `shock-${Date.now()}-${tick++}`);
  return reports.find((r) => r.venue === 'polymarket')!;
};

/** A market of the emulated venue imported at `yes`, tagged as the venue tags a soccer match unless `tags` says otherwise. */
async function importedMatch(agent: RegisteredAgent, yes: number, tags = ['sports', 'soccer']) {
  const tag = randomBytes(4).toString('hex');
  const event = await polymarketAdmin<{ event_slug: string; markets: { condition_id: string }[] }>(
    'POST',
    '/events',
    { title: `Match ${tag}: will the home side win?`, slug: `match-${tag}`, prices: [yes], tags },
  );
  const res = await api()
    .post('/api/sdk/markets/import')
    .set(as(agent))
    .send({ polymarket_url: polymarketEventUrl(event.event_slug) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return { conditionId: event.markets[0]!.condition_id, marketId: res.body.market_id as string };
}
const movePrice = (conditionId: string, yes: number) =>
  polymarketAdmin('POST', `/markets/${conditionId}/price`, { yes });

/** The venue's past prints of `marketId`: drops of 6¢ from 0.80 reaching each depth, far more than a window apart. */
function pastDropPrints(marketId: string, depthsCents: number[]): TapePrintRow[] {
  const start = Math.floor(Date.now() / 1000) - 3 * 24 * 3600;
  const rows: TapePrintRow[] = [];
  const print = (t: number, price: number) =>
    rows.push({
      source: 'polymarket',
      print_id: `${marketId}:${t}`,
      timestamp: t,
      block_number: t,
      transaction_hash: `0x${t.toString(16)}`,
      log_index: 0,
      market_id: marketId,
      condition_id: marketId,
      event_id: null,
      price,
      usd_amount: 10,
      token_amount: 10 / price,
      side: 'SELL',
      maker: '0xmaker',
      taker: '0xtaker',
    });
  depthsCents.forEach((depth, i) => {
    const t = start + i * 3600;
    print(t, 0.8);
    print(t + 60, 0.74);
    print(t + 120, 0.8 - depth / 100);
    print(t + 900, 0.8);
  });
  return rows;
}

describe('shock ladder #integration', function () {
  this.timeout(60_000);
  const armed: RegisteredAgent[] = [];
  const arm = async () => {
    const agent = await registerAgent();
    const res = await config(agent, { enabled: true });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    armed.push(agent);
    return agent;
  };
  after(async () => {
    // Armed agents would get the shocks of later test files' sports markets.
    for (const a of armed) await config(a, { enabled: false });
  });

  it('when an agent arms the shock ladder, then GET and PATCH answer shock_ladder_enabled as the skill reads it', async () => {
    const agent = await registerAgent();
    const before = await config(agent).expect(200);
    assert.equal(before.body.shock_ladder_enabled, false);
    const on = await config(agent, { enabled: true }).expect(200);
    assert.equal(on.body.shock_ladder_enabled, true);
    assert.equal((await config(agent).expect(200)).body.shock_ladder_enabled, true);
    const off = await config(agent, { enabled: false }).expect(200);
    assert.equal(off.body.shock_ladder_enabled, false);
    const bad = await config(agent, { enabled: 'yes please' });
    assert.equal(bad.status, 422, JSON.stringify(bad.body));
    assert.ok(bad.body.fix, JSON.stringify(bad.body));
  });

  it('when a sports market drops sharply between refreshes, then each armed agent gets one shock_ladder signal, deletable by shock_id', async () => {
    const { env } = testContext();
    const armedAgent = await arm();
    const bystander = await registerAgent();
    const { conditionId, marketId } = await importedMatch(bystander, 0.8);
    await syncPrices();
    assert.deepEqual(await shocksOf(armedAgent), []);

    const since = Date.now();
    await movePrice(conditionId, 0.7);
    const report = await syncPrices();
    assert.ok(report.shocks >= 1, JSON.stringify(report));

    const [shock, ...more] = (await shocksOf(armedAgent)).filter((s) => s.market_id === marketId);
    assert.ok(shock, 'a shock signal');
    assert.equal(more.length, 0);
    assert.equal(shock.side, 'yes');
    assert.ok(Math.abs(shock.pre_price - 0.8) < 0.011, `pre_price ${shock.pre_price}`);
    assert.ok(shock.pre_price - shock.shock_price >= env.SHOCK_LADDER_DROP_CENTS / 100);
    assert.equal(shock.signal_id, shock.shock_id);
    const [league, band] = shock.bucket_key.split('|');
    assert.equal(league, 'soccer');
    assert.equal(band, 'moderate');
    assert.equal(shock.bucket_key.split('|').length, 5);
    assert.deepEqual(Object.keys(shock.percentile_depths).sort(), ['p50', 'p75', 'p90', 'p95']);
    assert.ok(['tapes', 'tapes_all_bands', 'default'].includes(shock.depth_source));
    // The agent who did not arm gets nothing.
    assert.deepEqual(
      (await shocksOf(bystander)).filter((s) => s.market_id === marketId),
      [],
    );
    // The Reactor event stream carries it as its own event, which the MCP client (reactor_event only) leaves.
    const { deps } = testContext();
    const entries = (
      await readReactorEventsAfter(deps.redis, env.QUEUE_PREFIX, `${since}-0`, 100_000)
    ).filter((e) => e.agentId === armedAgent.agent_id && e.data.shock_id === shock.shock_id);
    assert.deepEqual(
      entries.map((e) => e.event),
      ['shock_ladder'],
    );

    // The price staying low at the next refresh is the same shock, not a second one.
    await syncPrices();
    assert.equal((await shocksOf(armedAgent)).filter((s) => s.market_id === marketId).length, 1);

    const del = await api()
      .delete(`/api/sdk/reactor/pending/${encodeURIComponent(shock.shock_id)}`)
      .set(as(armedAgent))
      .expect(200);
    assert.equal(del.body.deleted, true);
    assert.deepEqual(
      (await shocksOf(armedAgent)).filter((s) => s.market_id === marketId),
      [],
    );
    const again = await api()
      .delete(`/api/sdk/reactor/pending/${encodeURIComponent(shock.shock_id)}`)
      .set(as(armedAgent))
      .expect(200);
    assert.equal(again.body.deleted, false);
  });

  it('when the YES price jumps, then the shock is on NO at its own price; a market not tagged sports makes none', async () => {
    const agent = await arm();
    const match = await importedMatch(agent, 0.2);
    const election = await importedMatch(agent, 0.2, ['politics']);
    await syncPrices();
    await movePrice(match.conditionId, 0.3);
    await movePrice(election.conditionId, 0.3);
    await syncPrices();
    const shocks = await shocksOf(agent);
    const [onNo] = shocks.filter((s) => s.market_id === match.marketId);
    assert.ok(onNo, JSON.stringify(shocks));
    assert.equal(onNo.side, 'no');
    assert.ok(Math.abs(onNo.pre_price - 0.8) < 0.011, `pre_price ${onNo.pre_price}`);
    assert.equal(onNo.bucket_key.split('|')[1], 'moderate');
    assert.deepEqual(
      shocks.filter((s) => s.market_id === election.marketId),
      [],
    );
  });

  it('when the tapes hold too few past drops, then the depths are the configured defaults; with enough, their percentiles', async () => {
    const { env } = testContext();
    const agent = await arm();
    const fresh = await importedMatch(agent, 0.8);
    await syncPrices();
    await movePrice(fresh.conditionId, 0.72);
    await syncPrices();
    const [first] = (await shocksOf(agent)).filter((s) => s.market_id === fresh.marketId);
    assert.ok(first);
    if (first.depth_source === 'default') {
      const [p50, p75, p90, p95] = env.SHOCK_LADDER_DEFAULT_DEPTHS_CENTS.split(',').map(Number);
      assert.deepEqual(first.percentile_depths, { p50, p75, p90, p95 });
      assert.equal(first.observed_count, 0);
    }

    // Past drops of this very market, recorded as the venue printed them three days ago.
    const depths = [6, 8, 10, 12, 14];
    assert.ok(env.SHOCK_LADDER_MIN_HISTORY <= depths.length);
    await appendPrints(tapeDirs(env.DATA_DIR), 'polymarket', pastDropPrints(fresh.marketId, depths));
    const next = await importedMatch(agent, 0.8);
    await syncPrices();
    await movePrice(next.conditionId, 0.72);
    await syncPrices();
    const [second] = (await shocksOf(agent)).filter((s) => s.market_id === next.marketId);
    assert.ok(second);
    assert.equal(second.depth_source, 'tapes', JSON.stringify(second));
    assert.ok(second.observed_count >= depths.length, JSON.stringify(second));
    const { p50, p75, p90, p95 } = second.percentile_depths;
    assert.ok(p50! <= p75! && p75! <= p90! && p90! <= p95!, JSON.stringify(second.percentile_depths));
    assert.ok(p50! >= 6 && p95! <= 15, JSON.stringify(second.percentile_depths));
    if (second.observed_count === 5)
      assert.deepEqual(second.percentile_depths, { p50: 10, p75: 12, p90: 13.2, p95: 13.6 });
  });

  it('when a shock signal sits beside a copytrade signal, then pending answers both, each deletable, and an expired shock is left out', async () => {
    const { deps } = testContext();
    const agent = await arm();
    const now = new Date();
    const tx = `0x${randomBytes(32).toString('hex')}`;
    const copy: ReactorSignalRecord = {
      _id: `${agent.agent_id}|${tx}`,
      agentId: agent.agent_id,
      signalId: tx,
      fillId: `${tx}:0:taker`,
      leg: 'taker',
      txHash: tx,
      venue: 'sim',
      marketId: 'some-market',
      side: 'yes',
      action: 'buy',
      amountMicro: 1_000_000,
      whale: {
        wallet: '0xwhale',
        label: null,
        side: 'BUY',
        tokenId: '1',
        price: 0.4,
        sharesMicro: 10_000_000,
        conditionId: '0xc',
        marketTitle: null,
        marketSlug: null,
        outcome: 'Yes',
      },
      live: true,
      createdAt: now,
      expiresAt: new Date(now.getTime() + 600_000),
      deletedAt: null,
      withdrawnAt: null,
      publishedAt: now,
      withdrawalPublishedAt: null,
    };
    await deps.models.ReactorSignal.create(copy);
    const match = await importedMatch(agent, 0.8);
    await syncPrices();
    await movePrice(match.conditionId, 0.7);
    await syncPrices();

    const both = await pending(agent);
    const shock = both.find((s) => s.type === 'shock_ladder' && s.market_id === match.marketId);
    assert.ok(shock, JSON.stringify(both));
    assert.ok(both.some((s) => s.type === 'copytrade' && s.signal_id === tx));

    // TTL: a shock past its expiry is no longer pending (the database drops it a day later).
    await deps.models.ShockSignal.updateOne(
      { _id: `${agent.agent_id}|${shock.shock_id}` },
      { $set: { expiresAt: new Date(Date.now() - 1000) } },
    );
    const after = await pending(agent);
    assert.ok(!after.some((s) => s.signal_id === shock.shock_id));
    assert.ok(after.some((s) => s.signal_id === tx));
    const indexes = await deps.models.ShockSignal.collection.indexes();
    assert.ok(indexes.some((i) => i.key.expiresAt === 1 && typeof i.expireAfterSeconds === 'number'));

    const del = await api().delete(`/api/sdk/reactor/pending/${tx}`).set(as(agent)).expect(200);
    assert.equal(del.body.deleted, true);
    assert.ok(!(await pending(agent)).some((s) => s.signal_id === tx));
  });
});
