import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { refreshVolumes } from '../../shared/domains/markets/refresh-volumes.js';
import { snapshotPrices } from '../../shared/domains/markets/snapshot-prices.js';
import { stateAt } from '../../shared/domains/markets/lmsr.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';

let agent: RegisteredAgent;
const get = (path: string) => api().get(path).set('Authorization', `Bearer ${agent.api_key}`);
const uniqueTag = () => `t-${randomUUID().slice(0, 8)}`;

/** `n` markets carrying `tag`, inserted in one go (for the window tests). */
async function bulkMarkets(
  n: number,
  tag: string,
  extra: (i: number) => Record<string, unknown> = () => ({}),
) {
  const s = stateAt(2241, 0.5);
  const now = Date.now();
  const docs = Array.from({ length: n }, (_, i) => ({
    _id: randomUUID(),
    question: `Bulk market ${tag} #${i}?`,
    status: 'active',
    importSource: 'sim',
    tags: [tag],
    currentPrice: 0.5,
    volume24hMicro: (n - i) * 1_000_000,
    createdAt: new Date(now - i * 1000),
    resolvesAt: new Date(now + (i + 1) * 3600_000),
    book: { b: 2241, q0Yes: s.qYes, q0No: s.qNo, yesMicro: 0, noMicro: 0, version: 0 },
    ...extra(i),
  }));
  await testContext().deps.models.Market.insertMany(docs);
  return docs;
}

describe('markets list and reads #integration', () => {
  before(async () => {
    agent = await registerAgent();
  });

  it('when more than 1,000 markets match, then the window is 1,000: total 1000, truncated and capped_at_limit, limit/offset inside it', async () => {
    const tag = uniqueTag();
    await bulkMarkets(1005, tag);
    const res = await get(`/api/sdk/markets?tags=${tag}&limit=10&offset=995`);
    assert.equal(res.status, 200);
    assert.equal(res.body.total, 1000);
    assert.equal(res.body.truncated, true);
    assert.equal(res.body.capped_at_limit, true);
    assert.equal(res.body.markets.length, 5, 'offset 995 leaves 5 rows inside the window');
    assert.equal(res.body.agent_id, agent.agent_id);
  });

  it('when the worldcup copytrader asks for the whole window (limit=1000), then it reads all 1,000 rows; a limit beyond the window is a 422 that says so', async () => {
    const tag = uniqueTag();
    await bulkMarkets(1005, tag);
    // polymarket-worldcup-copytrader's own query (client-contract §12).
    const res = await get(
      `/api/sdk/markets?tags=${tag}&status=active&limit=1000&tradeable_only=false&include_analytics_only=true`,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body).slice(0, 500));
    assert.equal(res.body.total, 1000);
    assert.equal(res.body.capped_at_limit, true);
    assert.equal(res.body.markets.length, 1000);
    const over = await get(`/api/sdk/markets?tags=${tag}&limit=1001`);
    assert.equal(over.status, 422);
    assert.match(JSON.stringify(over.body), /limit is at most 1000/);
  });

  it('when filters narrow the matches, then they apply before the cap', async () => {
    const tag = uniqueTag();
    const narrow = uniqueTag();
    await bulkMarkets(1003, tag, (i) => (i % 201 === 0 ? { tags: [tag, narrow] } : {}));
    const res = await get(`/api/sdk/markets?tags=${tag},${narrow}`);
    assert.equal(res.body.total, 5);
    assert.equal(res.body.truncated, false);
    assert.ok(
      res.body.markets.every((m: { tags: string[] }) => m.tags.includes(narrow)),
      'ALL tags must match',
    );
  });

  it('sorts by 24 h volume by default (ties newest first), and newest first with sort=recent/created', async () => {
    const tag = uniqueTag();
    const docs = await bulkMarkets(4, tag, (i) => ({ volume24hMicro: i < 2 ? 5_000_000 : i * 1_000_000 }));
    const byVolume = (await get(`/api/sdk/markets?tags=${tag}`)).body.markets.map(
      (m: { id: string }) => m.id,
    );
    assert.deepEqual(byVolume, [docs[0]!._id, docs[1]!._id, docs[3]!._id, docs[2]!._id]);
    for (const sort of ['recent', 'created']) {
      const newest = (await get(`/api/sdk/markets?tags=${tag}&sort=${sort}`)).body.markets.map(
        (m: { id: string }) => m.id,
      );
      assert.deepEqual(
        newest,
        docs.map((d) => d._id),
      );
    }
  });

  it('when a parameter, venue or sort value is unknown, then a warning names the valid ones and the closest match', async () => {
    const tag = uniqueTag();
    await bulkMarkets(2, tag);
    const res = await get(`/api/sdk/markets?tags=${tag}&tag=x&sort=volumne&venue=polymarkt`);
    assert.equal(res.status, 200);
    assert.match(res.body.warning, /'tag' \(did you mean 'tags'\?\)/);
    assert.match(
      res.body.warning,
      /Unknown sort 'volumne' ignored \(did you mean 'volume'\?\)\. Valid values: volume, recent, created\./,
    );
    assert.match(res.body.warning, /Unknown venue 'polymarkt' ignored \(did you mean 'polymarket'\?\)/);
    assert.equal(res.body.markets.length, 2, 'unknown values are ignored, not errors');
  });

  it('when a legacy alias of sim is used, then it means sim with a deprecation warning; venue=sim lists sim-tradeable markets', async () => {
    const tag = uniqueTag();
    await bulkMarkets(2, tag, (i) => (i === 0 ? { importSource: 'polymarket' } : {}));
    const sim = await get(`/api/sdk/markets?tags=${tag}&venue=sim`);
    assert.equal(sim.body.markets.length, 2, 'imported markets are tradeable on sim too');
    const sandbox = await get(`/api/sdk/markets?tags=${tag}&venue=sandbox`);
    assert.match(sandbox.body.warning, /venue 'sandbox' is deprecated; use 'sim'/);
    const poly = await get(`/api/sdk/markets?tags=${tag}&import_source=polymarket`);
    assert.equal(poly.body.markets.length, 1);
    assert.equal(poly.body.markets[0].import_source, 'polymarket');
  });

  it('q searches question and tags case-insensitively (min 2 characters); ids lists up to 50 of any status', async () => {
    const tag = uniqueTag();
    const docs = await bulkMarkets(3, tag, (i) =>
      i === 2 ? { status: 'resolved', outcome: true, resolvedAt: new Date() } : {},
    );
    const byQuestion = await get(`/api/sdk/markets?q=${tag.toUpperCase()}%20%230`);
    assert.deepEqual(
      byQuestion.body.markets.map((m: { id: string }) => m.id),
      [docs[0]!._id],
    );
    const byTag = await get(`/api/sdk/markets?q=${tag}`);
    assert.equal(byTag.body.markets.length, 2, 'active only by default');
    const ids = await get(`/api/sdk/markets?ids=${docs.map((d) => d._id).join(',')}`);
    assert.equal(ids.body.markets.length, 3, 'ids without status: all statuses');
    const idsActive = await get(`/api/sdk/markets?ids=${docs.map((d) => d._id).join(',')}&status=active`);
    assert.equal(idsActive.body.markets.length, 2);
    const short = await get('/api/sdk/markets?q=a');
    assert.equal(short.status, 422);
    assert.deepEqual(short.body.detail[0].loc, ['query', 'q']);
    const tooMany = await get(
      `/api/sdk/markets?ids=${Array.from({ length: 51 }, () => randomUUID()).join(',')}`,
    );
    assert.equal(tooMany.status, 422);
  });

  it('q matches each word in the question or a tag, in any order, regex characters literally; at most 12 words', async () => {
    const tag = uniqueTag();
    const topic = uniqueTag();
    const both = await makeMarket({
      question: `Will Trump visit China before ${tag} (.* yes)?`,
      tags: [topic],
    });
    await makeMarket({ question: `Will Trump visit Canada before ${tag}?`, tags: [topic] });
    const ids = async (q: string) => {
      const res = await get(`/api/sdk/markets?q=${encodeURIComponent(q)}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.markets.map((m: { id: string }) => m.id);
    };
    // "trump china" as polymarket-research asks: both words, apart and in the other order.
    assert.deepEqual(await ids(`china TRUMP ${tag}`), [both._id]);
    // One word in the question, the other only in a tag.
    assert.deepEqual(await ids(`china ${topic}`), [both._id]);
    assert.equal((await ids(`trump ${tag}`)).length, 2);
    assert.deepEqual(await ids(`trump mars ${tag}`), []);
    assert.deepEqual(await ids(`(.* ${tag}`), [both._id], 'regex characters match themselves');
    const publicList = await api().get(`/api/markets?q=${encodeURIComponent(`china trump ${tag}`)}`);
    assert.deepEqual(
      publicList.body.markets.map((m: { id: string }) => m.id),
      [both._id],
    );
    const long = await get(
      `/api/sdk/markets?q=${encodeURIComponent('a1 b2 c3 d4 e5 f6 g7 h8 i9 j10 k11 l12 m13')}`,
    );
    assert.equal(long.status, 422);
    assert.deepEqual(long.body.detail[0].loc, ['query', 'q']);
  });

  it('tradeable_only hides active markets whose book is unavailable, and an empty answer explains itself', async () => {
    const tag = uniqueTag();
    await bulkMarkets(2, tag, () => ({ isOrderbookOpen: false }));
    const hidden = await get(`/api/sdk/markets?tags=${tag}`);
    assert.equal(hidden.body.markets.length, 0);
    assert.equal(hidden.body.empty_reason, 'not_tradeable');
    assert.equal(hidden.body.matched_before_tradeable_filter, 2);
    assert.match(hidden.body.hint, /tradeable_only=false/);
    const shown = await get(`/api/sdk/markets?tags=${tag}&tradeable_only=false`);
    assert.equal(shown.body.markets.length, 2);
    const none = await get(`/api/sdk/markets?q=${uniqueTag()}`);
    assert.equal(none.body.empty_reason, 'no_match_for_query');
    assert.equal(none.body.matched_before_tradeable_filter, 0);
    assert.equal(typeof none.body.hint, 'string');
  });

  it('tracking markets are hidden unless include_analytics_only=true', async () => {
    const tag = uniqueTag();
    await bulkMarkets(1, tag, () => ({ analyticsOnly: true, simTradeable: false }));
    assert.equal((await get(`/api/sdk/markets?tags=${tag}`)).body.markets.length, 0);
    const shown = await get(`/api/sdk/markets?tags=${tag}&include_analytics_only=true`);
    assert.equal(shown.body.markets.length, 1);
    assert.equal(shown.body.markets[0].sim_tradeable, false);
  });

  it('seconds_to_resolution is computed at response time: positive ahead, negative once passed, null without resolves_at', async () => {
    const tag = uniqueTag();
    await bulkMarkets(3, tag, (i) => ({
      resolvesAt:
        i === 0 ? new Date(Date.now() + 3600_000) : i === 1 ? new Date(Date.now() - 3600_000) : null,
      volume24hMicro: (3 - i) * 1e6,
    }));
    const rows = (await get(`/api/sdk/markets?tags=${tag}`)).body.markets;
    assert.ok(rows[0].seconds_to_resolution > 3500 && rows[0].seconds_to_resolution <= 3600);
    assert.ok(rows[1].seconds_to_resolution < -3500);
    assert.equal(rows[2].seconds_to_resolution, null);
    for (const key of [
      'polymarket_id',
      'polymarket_token_id',
      'polymarket_no_token_id',
      'external_price_yes',
      'resolution_criteria',
      'url',
    ])
      assert.ok(key in rows[0], key);
    const soon = await get(`/api/sdk/markets?tags=${tag}&max_hours_to_resolution=2`);
    assert.equal(soon.body.markets.length, 1);
  });

  describe('history', () => {
    it('when a market trades, then its history shows the price move at the interval grid, oldest first', async () => {
      const market = await makeMarket({ p0: 0.5 });
      const buy = await trade(agent, { market_id: market._id, side: 'yes', amount: 300 });
      const res = await get(`/api/sdk/markets/${market._id}/history?hours=2&interval=5`);
      assert.equal(res.status, 200);
      assert.equal(res.body.market_id, market._id);
      assert.equal(res.body.interval_minutes, 5);
      assert.equal(res.body.points.length, 24);
      const first = res.body.points[0];
      assert.equal(first.price_yes, 0.5);
      assert.equal(first.price_no, 0.5);
      const last = res.body.points.at(-1);
      const stamps = res.body.points.map((p: { timestamp: string }) => Date.parse(p.timestamp));
      assert.ok(stamps.every((t: number, i: number) => i === 0 || t - stamps[i - 1] === 5 * 60_000));
      // The trade is inside the last interval unless it just crossed a boundary: the newest point is the old or the new price.
      assert.ok([0.5, buy.body.new_price].includes(last.price_yes));
      const defaults = await get(`/api/sdk/markets/${market._id}/history`);
      assert.equal(defaults.body.points.length, 96, '24 h at 15 min by default');
    });

    it('when the snapshot job runs, then it records a point per moved market once per slot, and history uses the points', async () => {
      const { deps } = testContext();
      const traded = await makeMarket({ p0: 0.5 });
      const quiet = await makeMarket({ p0: 0.3 });
      await trade(agent, { market_id: traded._id, side: 'yes', amount: 50 });
      const slotEnd = new Date(Math.ceil(Date.now() / 900_000) * 900_000);
      const first = await snapshotPrices(deps.models, slotEnd);
      assert.ok(first.recorded >= 1);
      await snapshotPrices(deps.models, slotEnd);
      assert.equal(await deps.models.PricePoint.countDocuments({ marketId: traded._id }), 1, 'once per slot');
      assert.equal(
        await deps.models.PricePoint.countDocuments({ marketId: quiet._id }),
        0,
        'a market that did not move gets no point',
      );
      // A snapshot is a known price: history after it shows it even where the log has no event.
      await deps.models.PricePoint.create({
        _id: `${quiet._id}-manual`,
        marketId: quiet._id,
        at: new Date(Math.floor(Date.now() / 3600_000) * 3600_000 - 3 * 3600_000),
        priceYes: 0.7,
      });
      const res = await get(`/api/sdk/markets/${quiet._id}/history?hours=6&interval=60`);
      assert.deepEqual(
        res.body.points.map((p: { price_yes: number }) => p.price_yes),
        [0.3, 0.3, 0.7, 0.7, 0.7, 0.7],
      );
    });

    it('when hours or interval are out of range, then 422 with fix; an unknown market is 404', async () => {
      const market = await makeMarket();
      for (const query of ['hours=169', 'hours=0', 'interval=4']) {
        const res = await get(`/api/sdk/markets/${market._id}/history?${query}`);
        assert.equal(res.status, 422, query);
        assert.equal(typeof res.body.fix, 'string');
      }
      assert.equal((await get(`/api/sdk/markets/${randomUUID()}/history`)).status, 404);
    });
  });

  it('GET /api/markets answers the public catalogue without auth', async () => {
    const tag = uniqueTag();
    await bulkMarkets(3, tag, (i) => ({ volume24hMicro: (i + 1) * 10_000_000 }));
    const res = await api().get(`/api/markets?tags=${tag}&limit=2&min_volume=15`);
    assert.equal(res.status, 200);
    assert.equal(res.body.markets.length, 2);
    assert.ok(res.body.markets[0].volume_24h >= res.body.markets[1].volume_24h);
    const ending = await api().get(`/api/markets?tags=${tag}&status=ending`);
    assert.deepEqual(
      ending.body.markets.map((m: { resolves_at: string }) => m.resolves_at),
      [...ending.body.markets.map((m: { resolves_at: string }) => m.resolves_at)].sort(),
    );
  });
});

describe('fast markets #integration', () => {
  it('lists fast markets live first then soonest, with is_live_now and opens_at, filtered by window, asset and status', async () => {
    const agent = await registerAgent();
    const now = Date.now();
    const live = await makeMarket({
      question: 'Bitcoin up or down in the next 15 minutes?',
      tags: ['fast', 'fast-15m', 'btc'],
      resolvesAt: new Date(now + 5 * 60_000),
    });
    const upcoming = await makeMarket({
      question: 'Bitcoin up or down, next quarter hour?',
      tags: ['fast', 'fast-15m', 'btc'],
      resolvesAt: new Date(now + 40 * 60_000),
    });
    const eth = await makeMarket({
      question: 'Ethereum up or down in 1 hour?',
      tags: ['fast', 'fast-1h', 'eth'],
      resolvesAt: new Date(now + 30 * 60_000),
    });
    const get = (q: string) =>
      api().get(`/api/sdk/fast-markets${q}`).set('Authorization', `Bearer ${agent.api_key}`);
    const btc = await get('?asset=BTC&window=15m');
    assert.equal(btc.status, 200);
    const ids = btc.body.markets.map((m: { id: string }) => m.id);
    assert.deepEqual(
      ids.filter((id: string) => [live._id, upcoming._id].includes(id)),
      [live._id, upcoming._id],
    );
    const first = btc.body.markets.find((m: { id: string }) => m.id === live._id);
    assert.equal(first.is_live_now, true);
    assert.equal(Date.parse(first.opens_at), now + 5 * 60_000 - 15 * 60_000);
    const later = btc.body.markets.find((m: { id: string }) => m.id === upcoming._id);
    assert.equal(later.is_live_now, false);
    assert.equal(later.market_status, 'upcoming');
    const onlyLive = await get('?asset=btc&market_status=live');
    assert.ok(onlyLive.body.markets.every((m: { is_live_now: boolean }) => m.is_live_now));
    const hourly = await get('?window=1h&asset=ETH');
    assert.ok(hourly.body.markets.some((m: { id: string }) => m.id === eth._id));
    assert.ok(hourly.body.markets.every((m: { window: string }) => m.window === '1h'));
    assert.equal((await get('?window=2m')).status, 422);
  });
});

describe('rolling 24 h volume #integration', () => {
  it('when fills are older than 24 hours, then the refresh job takes them out of volume_24h (the outside volume stays)', async () => {
    const { deps } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket({
      p0: 0.5,
      baseVolume24hMicro: 1_000_000_000,
      volume24hMicro: 1_000_000_000,
    });
    await trade(agent, { market_id: market._id, side: 'yes', amount: 30 });
    await trade(agent, { market_id: market._id, side: 'no', amount: 20 });
    const after = (await deps.models.Market.findById(market._id).lean())!;
    assert.equal(after.volume24hMicro, 1_050_000_000, 'fills count at once');
    await refreshVolumes(deps.models, new Date());
    assert.equal(
      (await deps.models.Market.findById(market._id).lean())!.volume24hMicro,
      1_050_000_000,
      'recent fills stay',
    );
    await refreshVolumes(deps.models, new Date(Date.now() + 25 * 3600_000));
    assert.equal(
      (await deps.models.Market.findById(market._id).lean())!.volume24hMicro,
      1_000_000_000,
      'a day later only the outside volume is left',
    );
  });

  it('when a venue market is checked by url, condition id or ticker, then it says whether it is here', async () => {
    const agent = await registerAgent();
    const auth = { Authorization: `Bearer ${agent.api_key}` };
    const conditionId = `0x${randomUUID().replace(/-/g, '').repeat(2)}`;
    const slug = `will-it-${randomUUID().slice(0, 8)}`;
    const ticker = `KXCHECK-${randomUUID().slice(0, 6).toUpperCase()}`;
    const poly = await makeMarket({
      importSource: 'polymarket',
      url: `https://polymarket.com/event/${slug}`,
      venueRef: {
        venue: 'polymarket',
        externalId: conditionId,
        yesTokenId: null,
        noTokenId: null,
        negRisk: null,
      },
    });
    const kalshi = await makeMarket({
      importSource: 'kalshi',
      url: `https://kalshi.com/markets/kxcheck/some-title/${ticker.toLowerCase()}`,
      venueRef: { venue: 'kalshi', externalId: ticker, yesTokenId: null, noTokenId: null, negRisk: null },
    });
    const check = (q: string) => api().get(`/api/sdk/markets/check?${q}`).set(auth);

    const byUrl = await check(
      `url=${encodeURIComponent(`HTTPS://www.polymarket.com/event/${slug}/?utm=x#top`)}`,
    );
    assert.equal(byUrl.status, 200);
    assert.equal(byUrl.body.exists, true);
    assert.equal(byUrl.body.market_id, poly._id);
    assert.equal(byUrl.body.question, poly.question);
    assert.equal(byUrl.body.status, 'active');
    assert.equal(
      (await check(`condition_id=${conditionId.toUpperCase().replace('0X', '0x')}`)).body.market_id,
      poly._id,
    );
    assert.equal((await check(`ticker=${ticker.toLowerCase()}`)).body.market_id, kalshi._id);
    const kalshiUrl = await check(
      `url=${encodeURIComponent(`https://kalshi.com/markets/other/path/${ticker}`)}`,
    );
    assert.equal(kalshiUrl.body.market_id, kalshi._id, 'a Kalshi URL is matched by the ticker it ends in');
    assert.deepEqual((await check('ticker=KXNOPE-1')).body, { exists: false });
    const none = await check('');
    assert.equal(none.status, 422);
    assert.equal(none.body.detail[0].loc[0], 'query');
    assert.equal((await check(`ticker=${ticker}&condition_id=${conditionId}`)).status, 422);
    assert.equal((await check('url=not-a-url')).status, 422);
  });
});
