import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import type { Job } from 'bullmq';
import { FillFeedFollower, fillFeedLeaseKey } from '../../shared/domains/fill-feed/fill-feed-follower.js';
import { followVenue } from '../../shared/domains/fill-feed/follow-venue.js';
import type { FeedBlock, FillFeedSource } from '../../shared/domains/venues/fill-feed-source.js';
import type { ExternalVenueId } from '../../shared/domains/venues/venue-id.js';
import type { VenueFillRecord } from '../../shared/domains/fill-feed/venue-fill.model.js';
import { testContext } from '../support/context.js';
import { api } from '../support/http.js';
import { until } from '../support/until.js';
import { polymarketAdmin } from '../support/venue-emulators.js';

// The fill feed against the Polymarket emulator: its Polygon JSON-RPC mines every admin fill as the
// exchanges' OrderFilled events, and the follower reads them through the service's own Polygon
// client and Polymarket adapter (the test context's deps). Mining is manual here, so each test
// says which fills share a block.

interface AdminFill {
  transaction_hash: string;
  token_id: string;
  taker: string;
  makers: { wallet: string }[];
}

const followers: FillFeedFollower[] = [];
function follower(opts: { holder?: string; maxBlocksPerRead?: number } = {}): FillFeedFollower {
  const f = new FillFeedFollower(testContext().deps, opts);
  followers.push(f);
  f.start();
  return f;
}

const models = () => testContext().deps.models;
const cursor = () => models().FillFeedCursor.findById('polymarket').lean();
const fillsOf = (txHash: string) =>
  models().VenueFill.find({ txHash: txHash.toLowerCase() }).sort({ logIndex: 1 }).lean<VenueFillRecord[]>();
const mine = async (blocks = 1) =>
  (await polymarketAdmin<{ block_number: number }>('POST', '/polygon/mine', { blocks })).block_number;

function newMarket(opts: { outcomes?: string[]; prices?: number[] } = {}) {
  return testContext().polymarket.state.createEvent({
    title: `Fill feed ${Math.random()}`,
    prices: [0.5],
    ...opts,
  }).markets[0]!;
}

const trade = (conditionId: string, body: Record<string, unknown>) =>
  polymarketAdmin<AdminFill>('POST', `/markets/${conditionId}/fills`, body);

/** Every job of the reactor queue named `name` whose fill ids include `fillId`, in any state. */
async function jobsWith(name: 'react-to-fills' | 'withdraw-fills', fillId: string): Promise<Job[]> {
  const jobs = await testContext().deps.queues.queues.reactor.getJobs([
    'waiting',
    'active',
    'completed',
    'failed',
    'delayed',
    'prioritized',
  ]);
  return jobs.filter((j) => j.name === name && (j.data as { fillIds: string[] }).fillIds.includes(fillId));
}

/** Starts a follower and waits for its first cursor (it follows from the head it found). */
async function followingFromHere(opts?: Parameters<typeof follower>[0]) {
  const f = follower(opts);
  const c = await until(cursor, (x) => x !== null);
  assert.ok(c, 'the follower wrote its cursor');
  return f;
}

describe('fill feed: the venues’ settled fills, followed from the chain #integration', function () {
  this.timeout(60_000);

  before(async () => {
    await polymarketAdmin('POST', '/polygon/mining', { mode: 'manual' });
  });
  after(async () => {
    await polymarketAdmin('POST', '/polygon/mining', { mode: 'interval' });
  });
  beforeEach(async () => {
    const { deps } = testContext();
    await deps.models.FillFeedCursor.deleteMany({});
    await deps.models.VenueFill.deleteMany({});
    await deps.redis.del(fillFeedLeaseKey(deps.env.QUEUE_PREFIX));
  });
  afterEach(async () => {
    await Promise.all(followers.splice(0).map((f) => f.stop()));
  });

  it('when a wallet trades on the venue, then its leg and its counterparty’s are stored with wallet, side, price, shares and market, and one react-to-fills job names them', async () => {
    const m = newMarket();
    await followingFromHere();
    const whale = Wallet.createRandom().address;
    const fill = await trade(m.conditionId, { wallet: whale, side: 'BUY', shares: 10, price: 0.42 });
    const block = await mine();

    const legs = await until(
      () => fillsOf(fill.transaction_hash),
      (x) => x.length === 2,
    );
    assert.equal(legs.length, 2, 'a maker leg and a taker leg');
    const [maker, taker] = legs;
    assert.deepEqual(
      {
        wallet: taker!.wallet,
        leg: taker!.leg,
        action: taker!.action,
        outcome: taker!.outcome,
        price: taker!.price,
        shares: taker!.shares,
        tokenId: taker!.tokenId,
        blockNumber: taker!.blockNumber,
        venue: taker!.venue,
        withdrawnAt: taker!.withdrawnAt,
      },
      {
        wallet: whale.toLowerCase(),
        leg: 'taker',
        action: 'buy',
        outcome: 'yes',
        price: 0.42,
        shares: 10,
        tokenId: m.tokenIds[0],
        blockNumber: block,
        venue: 'polymarket',
        withdrawnAt: null,
      },
    );
    assert.equal(taker!._id, `${fill.transaction_hash.toLowerCase()}:${taker!.logIndex}:taker`);
    assert.deepEqual(taker!.market, {
      externalId: m.conditionId.toLowerCase(),
      yesTokenId: m.tokenIds[0],
      noTokenId: m.tokenIds[1],
      title: m.question,
      slug: m.slug,
      outcomeLabel: 'Yes',
    });
    // The resting order it took: the crowd wallet sold the same shares at the same price.
    assert.deepEqual(
      [maker!.wallet, maker!.leg, maker!.action, maker!.price, maker!.shares],
      [fill.makers[0]!.wallet.toLowerCase(), 'maker', 'sell', 0.42, 10],
    );

    const jobs = await until(
      () => jobsWith('react-to-fills', taker!._id),
      (x) => x.length > 0,
    );
    assert.equal(jobs.length, 1);
    assert.deepEqual(
      new Set((jobs[0]!.data as { fillIds: string[] }).fillIds),
      new Set([maker!._id, taker!._id]),
    );

    // A NO sale on a neg-risk market: the Neg Risk exchange's events, the NO token's market.
    const nr = newMarket({ outcomes: ['A', 'B', 'C'], prices: [0.3, 0.3, 0.4] });
    const sale = await trade(nr.conditionId, {
      wallet: whale,
      side: 'SELL',
      shares: 5,
      price: 0.6,
      outcome_index: 1,
    });
    await mine();
    const [, sold] = await until(
      () => fillsOf(sale.transaction_hash),
      (x) => x.length === 2,
    );
    assert.deepEqual(
      [
        sold?.wallet,
        sold?.leg,
        sold?.action,
        sold?.outcome,
        sold?.price,
        sold?.shares,
        sold?.market?.externalId,
      ],
      [whale.toLowerCase(), 'taker', 'sell', 'no', 0.6, 5, nr.conditionId.toLowerCase()],
    );
    assert.equal(sold?.market?.noTokenId, nr.tokenIds[1]);

    // The operator's view of the feed: Reactor's signals of the last minute are counted, older ones not.
    const adminFeed = async () => {
      const res = await api()
        .get('/api/admin/fill-feed')
        .set('Authorization', `Bearer ${testContext().operatorToken}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    const signals = testContext().deps.mongo.db!.collection<{ _id: string; createdAt: Date }>(
      'reactor_signals',
    );
    const before = (await adminFeed()).signals_per_minute as number;
    const now = Date.now();
    const probes = [
      { _id: `fill-feed-test|${now}-a`, createdAt: new Date(now) },
      { _id: `fill-feed-test|${now}-b`, createdAt: new Date(now - 5_000) },
      { _id: `fill-feed-test|${now}-old`, createdAt: new Date(now - 5 * 60_000) },
    ];
    await signals.insertMany(probes);
    try {
      const status = await adminFeed();
      assert.equal(status.signals_per_minute, before + 2);
      const polymarket = status.venues.find((v: { venue: string }) => v.venue === 'polymarket');
      assert.ok(polymarket.cursor_block >= block, JSON.stringify(polymarket));
      assert.ok(polymarket.head_block >= polymarket.cursor_block);
      assert.equal(polymarket.lag_blocks, polymarket.head_block - polymarket.cursor_block);
      assert.ok(polymarket.fills_per_minute >= 4, JSON.stringify(polymarket));
      assert.equal(status.holder, followers[0]!.holder);
    } finally {
      await signals.deleteMany({ _id: { $in: probes.map((p) => p._id) } });
    }
    // The console's Venues page shows the same row.
    const page = await api()
      .get('/admin/venues')
      .set('Authorization', `Bearer ${testContext().operatorToken}`);
    assert.equal(page.status, 200);
    assert.match(page.text, /Fill feed \(polled every \d+ ms/);
    const row = /<tr>\s*<td>polymarket<\/td>\s*<td class="num">(\d+)<\/td>/.exec(page.text);
    assert.ok(row && Number(row[1]) >= block, 'the cursor on the console');
    // And Prometheus's, on the registry of the process that follows.
    const exposed = await testContext().deps.metrics.registry.metrics();
    const cursorGauge = /^fill_feed_cursor_block\{venue="polymarket"\} (\d+)$/m.exec(exposed);
    assert.ok(cursorGauge && Number(cursorGauge[1]) >= block, 'fill_feed_cursor_block');
    assert.match(exposed, /^fill_feed_leader 1$/m);
  });

  it('when a reorg replaces the block of a fill without it, then the fill is withdrawn and a withdraw-fills job names it, while the fill mined again keeps its id and takes the new block', async () => {
    const m = newMarket();
    await followingFromHere();
    const kept = await trade(m.conditionId, {
      wallet: Wallet.createRandom().address,
      side: 'BUY',
      shares: 10,
    });
    const dropped = await trade(m.conditionId, {
      wallet: Wallet.createRandom().address,
      side: 'BUY',
      shares: 20,
    });
    await mine();
    await until(
      () => fillsOf(dropped.transaction_hash),
      (x) => x.length === 2,
    );
    const keptBefore = await fillsOf(kept.transaction_hash);

    const reorg = await polymarketAdmin<{ replaced: { new_hash: string }[] }>('POST', '/polygon/reorg', {
      depth: 1,
      drop: [dropped.transaction_hash],
    });

    const gone = await until(
      () => fillsOf(dropped.transaction_hash),
      (x) => x.every((f) => f.withdrawnAt !== null),
    );
    assert.equal(gone.length, 2);
    assert.ok(
      gone.every((f) => f.withdrawnAt instanceof Date),
      'both legs of the dropped match are withdrawn',
    );
    const keptAfter = await until(
      () => fillsOf(kept.transaction_hash),
      (x) => x.every((f) => f.blockHash === reorg.replaced[0]!.new_hash),
    );
    assert.deepEqual(
      keptAfter.map((f) => [f._id, f.withdrawnAt, f.blockHash]),
      keptBefore.map((f) => [f._id, null, reorg.replaced[0]!.new_hash]),
    );
    const withdrawals = await until(
      () => jobsWith('withdraw-fills', gone[1]!._id),
      (x) => x.length > 0,
    );
    assert.equal(withdrawals.length, 1);
    assert.deepEqual(
      new Set((withdrawals[0]!.data as { fillIds: string[] }).fillIds),
      new Set(gone.map((f) => f._id)),
    );
    assert.deepEqual(await jobsWith('withdraw-fills', keptAfter[0]!._id), []);
  });

  it('when the follower stops and starts again, then it resumes from its cursor: the fills mined meanwhile are caught up in bounded ranges, none twice and none missed', async () => {
    const m = newMarket();
    const first = await followingFromHere();
    const before = await trade(m.conditionId, {
      wallet: Wallet.createRandom().address,
      side: 'BUY',
      shares: 3,
    });
    await mine();
    const [beforeMaker] = await until(
      () => fillsOf(before.transaction_hash),
      (x) => x.length === 2,
    );
    await first.stop();

    // While nobody follows: fills in several blocks, and empty blocks between them.
    const meanwhile: AdminFill[] = [];
    for (let i = 0; i < 3; i++) {
      meanwhile.push(
        await trade(m.conditionId, { wallet: Wallet.createRandom().address, side: 'SELL', shares: 2 + i }),
      );
      await mine(3);
    }
    const head = await mine();

    follower({ maxBlocksPerRead: 2 });
    const caught = await until(cursor, (c) => c?.block === head);
    assert.equal(caught?.block, head, 'the cursor reached the head');
    for (const f of meanwhile) {
      const legs = await fillsOf(f.transaction_hash);
      assert.equal(legs.length, 2, `both legs of ${f.transaction_hash}`);
      const [job, ...more] = await jobsWith('react-to-fills', legs[1]!._id);
      assert.ok(job, 'a react-to-fills job for the block');
      assert.equal(more.length, 0);
    }
    // The fill read before the restart was not read again.
    const again = await fillsOf(before.transaction_hash);
    assert.equal(again.length, 2);
    assert.deepEqual(again[0]!.recordedAt, beforeMaker!.recordedAt);
    assert.equal((await jobsWith('react-to-fills', beforeMaker!._id)).length, 1);
  });

  it('when two followers run at once, then one holds the lease and follows, and when it stops the other takes over', async () => {
    const m = newMarket();
    const a = follower({ holder: 'follower-a' });
    const b = follower({ holder: 'follower-b' });
    await until(cursor, (x) => x !== null);
    const leaders = () => [a, b].filter((f) => f.leader);
    assert.equal(leaders().length, 1, 'exactly one follows');
    const [leader] = leaders();
    const other = leader === a ? b : a;

    const one = await trade(m.conditionId, { wallet: Wallet.createRandom().address, side: 'BUY', shares: 4 });
    await mine();
    const legs = await until(
      () => fillsOf(one.transaction_hash),
      (x) => x.length === 2,
    );
    assert.equal(legs.length, 2);
    assert.equal((await jobsWith('react-to-fills', legs[0]!._id)).length, 1);
    assert.equal((await cursor())?.holder, leader!.holder);
    assert.equal(leaders().length, 1, 'still one');

    await leader!.stop();
    await until(
      async () => other.leader,
      (x) => x,
    );
    assert.ok(other.leader, 'the lease passed to the other follower');
    const two = await trade(m.conditionId, { wallet: Wallet.createRandom().address, side: 'BUY', shares: 6 });
    const block = await mine();
    const next = await until(
      () => fillsOf(two.transaction_hash),
      (x) => x.length === 2,
    );
    assert.equal(next.length, 2);
    const c = await until(cursor, (x) => x?.block === block);
    assert.equal(c?.holder, other.holder);
  });

  it('when the node answers a head below the cursor (a load-balanced RPC behind the last one), then the feed waits for it: no reorg, no block read again', async () => {
    // A chain of 10 blocks the follower has read to its end, then a node that only has 8 of them.
    const venue = 'fill-feed-lagging-node' as ExternalVenueId;
    const block = (number: number): FeedBlock => ({
      number,
      hash: `0x${number.toString(16).padStart(64, '0')}`,
      parentHash: `0x${(number - 1).toString(16).padStart(64, '0')}`,
      at: new Date(Date.UTC(2026, 0, 1) + number * 2000),
    });
    let height = 10;
    const reads: [number, number][] = [];
    const source: FillFeedSource = {
      maxBlocksPerRead: 100,
      head: async () => block(height),
      block: async (n) => (n <= height ? block(n) : null),
      fills: async (from, to) => {
        reads.push([from, to]);
        return [];
      },
    };
    const { deps } = testContext();
    const opts = { confirmations: 8, maxBlocksPerRead: 100, holder: 'test', keepGoing: async () => true };
    await deps.models.FillFeedCursor.deleteMany({ _id: venue });
    await followVenue(deps, venue, { ...source, head: async () => block(2) }, opts);
    await followVenue(deps, venue, source, opts);
    assert.deepEqual(reads, [[3, 10]]);

    height = 8;
    await followVenue(deps, venue, source, opts);
    const c = await deps.models.FillFeedCursor.findById(venue).lean();
    assert.equal(c?.block, 10);
    assert.equal(c?.reconcileThrough, null);
    height = 11;
    await followVenue(deps, venue, source, opts);
    assert.deepEqual(reads, [
      [3, 10],
      [11, 11],
    ]);
    await deps.models.FillFeedCursor.deleteMany({ _id: venue });
  });
});
