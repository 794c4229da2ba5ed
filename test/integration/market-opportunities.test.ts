import assert from 'node:assert/strict';
import { makeMarket } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';

/** `GET /api/sdk/markets/opportunities` (client-contract §12.3), read as polymarket-ai-divergence reads it. */

interface Opportunity {
  id: string;
  question: string;
  current_probability: number;
  external_price_yes: number;
  divergence: number;
  import_source: string;
  resolves_at: string | null;
  opportunity_score: number;
  recommended_side: 'yes' | 'no';
  signal_source: string;
}

let agent: RegisteredAgent;
const get = (query: Record<string, string | number>) =>
  api().get('/api/sdk/markets/opportunities').query(query).set('Authorization', `Bearer ${agent.api_key}`);

/** An open imported market whose pool is at `pool` and whose venue quotes YES at `venue`. */
const imported = (pool: number, venue: number | null, extra: Record<string, unknown> = {}) =>
  makeMarket({
    p0: pool,
    currentPrice: pool,
    importSource: 'polymarket',
    externalPriceYes: venue,
    externalSpread: 0.02,
    ...extra,
  });

describe('market opportunities #integration', () => {
  before(async () => {
    agent = await registerAgent({ name: 'opportunities' });
  });

  it('when pool and venue prices differ, then imported markets are listed largest gap first with the §12.3 fields', async () => {
    // Gaps far above any other test's, so these lead the ranking whatever else the database holds.
    const bullish = await imported(0.97, 0.03); // +0.94: the venue sells YES cheap
    const bearish = await imported(0.02, 0.98, { feeRateBps: 1000 }); // -0.96
    const small = await imported(0.955, 0.035); // +0.92

    const res = await get({ limit: 100, min_divergence: 0.9 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const rows = res.body.opportunities as Opportunity[];
    const ids = rows.map((r) => r.id);
    const mine = ids.filter((id) => [bullish._id, bearish._id, small._id].includes(id));
    assert.deepEqual(mine, [bearish._id, bullish._id, small._id]);
    for (let i = 1; i < rows.length; i++)
      assert.ok(Math.abs(rows[i - 1]!.divergence) >= Math.abs(rows[i]!.divergence), 'ranked by |divergence|');

    const up = rows.find((r) => r.id === bullish._id)!;
    assert.deepEqual(Object.keys(up).sort(), [
      'current_probability',
      'divergence',
      'external_price_yes',
      'id',
      'import_source',
      'opportunity_score',
      'question',
      'recommended_side',
      'resolves_at',
      'signal_source',
    ]);
    assert.equal(up.current_probability, 0.97);
    assert.equal(up.external_price_yes, 0.03);
    assert.equal(up.divergence, 0.94);
    assert.equal(up.recommended_side, 'yes');
    assert.equal(up.import_source, 'polymarket');
    assert.equal(up.signal_source, 'crowd');
    assert.equal(up.question, bullish.question);
    assert.equal(up.resolves_at, bullish.resolvesAt!.toISOString());
    // The gap less half the 2-cent spread, in cents (no fee).
    assert.equal(up.opportunity_score, 93);

    const down = rows.find((r) => r.id === bearish._id)!;
    assert.equal(down.divergence, -0.96);
    assert.equal(down.recommended_side, 'no');
    // Buying NO at 0.02 on the venue: 96 − 1 (half spread) − 10 % × min(0.02, 0.98) × 100 = 94.8.
    assert.equal(down.opportunity_score, 94.8);
  });

  it('when min_divergence and limit are given, then only gaps at least that large are listed, at most limit of them', async () => {
    const wide = await imported(0.99, 0.01);
    const narrow = await imported(0.6, 0.5);

    const above = (await get({ min_divergence: 0.2, limit: 100 })).body.opportunities as Opportunity[];
    assert.ok(above.some((r) => r.id === wide._id));
    assert.ok(!above.some((r) => r.id === narrow._id), 'a 10-cent gap is under min_divergence 0.2');
    assert.ok(above.every((r) => Math.abs(r.divergence) >= 0.2));

    const all = (await get({ min_divergence: 0.1, limit: 100 })).body.opportunities as Opportunity[];
    assert.ok(
      all.some((r) => r.id === narrow._id),
      'a gap of exactly min_divergence is listed',
    );

    const one = (await get({ limit: 1 })).body.opportunities as Opportunity[];
    assert.equal(one.length, 1);
    assert.ok(Math.abs(one[0]!.divergence) >= 0.98);
  });

  it('when a market is sim, has no venue price or is no longer open, then it is not an opportunity', async () => {
    const sim = await makeMarket({ p0: 0.99, currentPrice: 0.99, externalPriceYes: 0.01 });
    const unpriced = await imported(0.99, null);
    const resolved = await imported(0.99, 0.01, { status: 'resolved' });
    const ids = ((await get({ limit: 100 })).body.opportunities as Opportunity[]).map((r) => r.id);
    for (const m of [sim, unpriced, resolved]) assert.ok(!ids.includes(m._id), m._id);
  });

  it('when limit or min_divergence is out of range, then 422 with the field and a fix', async () => {
    for (const [query, field] of [
      [{ min_divergence: 5 }, 'min_divergence'],
      [{ min_divergence: -0.1 }, 'min_divergence'],
      [{ limit: 0 }, 'limit'],
      [{ limit: 1000 }, 'limit'],
      [{ limit: 'ten' }, 'limit'],
    ] as const) {
      const res = await get(query);
      assert.equal(res.status, 422, JSON.stringify(query));
      assert.deepEqual(res.body.detail[0].loc, ['query', field]);
      assert.equal(typeof res.body.fix, 'string');
      assert.ok(res.body.fix.length > 0);
    }
    const percent = await get({ min_divergence: 5 });
    assert.match(percent.body.detail[0].msg, /fraction/);
  });
});
