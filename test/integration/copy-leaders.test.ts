import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { LATEST_COPY_LEADERS } from '../../shared/domains/copytrading/copy-leaders/copy-leaders.model.js';
import { testContext } from '../support/context.js';
import { makeMarket } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { until } from '../support/until.js';

/**
 * `GET /api/sdk/wc/copy-leaders` and `GET /api/sdk/copytrading/leaders` (client-contract §12.2):
 * the daily job backtests copying each wallet of the fill feed's record (`venue_fills`).
 */

interface Leader {
  wallet: string;
  backtest_copy_pnl_usdc: number;
  slippage_cost_rate_pct: number;
  trade_count: number;
}

let agent: RegisteredAgent;
const get = (path: string, query: Record<string, string | number> = {}) =>
  api().get(path).query(query).set('Authorization', `Bearer ${agent.api_key}`);
const operator = () => `Bearer ${testContext().operatorToken}`;

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}`;
const newWallet = () => hex(20);
const HOUR = 3_600_000;

/** An imported market of `category` (its venue market a fresh condition id), optionally resolved. */
async function importedMarket(category: string, extra: Record<string, unknown> = {}) {
  const externalId = hex(32);
  const market = await makeMarket({
    importSource: 'polymarket',
    category,
    feeRateBps: 0,
    venueRef: { venue: 'polymarket', externalId, yesTokenId: hex(8), noTokenId: hex(8), negRisk: false },
    ...extra,
  });
  return { market, externalId };
}

let logIndex = 0;
/** One stored fill leg, as the fill feed writes it. */
function fill(
  externalId: string,
  wallet: string,
  at: Date,
  action: 'buy' | 'sell',
  outcome: 'yes' | 'no',
  price: number,
  shares: number,
  extra: Record<string, unknown> = {},
) {
  const txHash = hex(32);
  logIndex += 1;
  return {
    _id: `${txHash}:${logIndex}:taker`,
    venue: 'polymarket',
    txHash,
    logIndex,
    blockNumber: 1000 + logIndex,
    blockHash: hex(32),
    at,
    leg: 'taker',
    wallet,
    action,
    outcome,
    tokenId: `${externalId}-${outcome}`,
    price,
    shares,
    market: { externalId, yesTokenId: null, noTokenId: null, title: null, slug: null, outcomeLabel: null },
    withdrawnAt: null,
    recordedAt: at,
    ...extra,
  };
}

/** The operator runs the schedule now; returns once its job stored a run. */
const runSchedule = async () => {
  const asked = new Date();
  const res = await api()
    .post('/api/admin/schedules/refresh-copy-leaders/run')
    .set('Authorization', operator());
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const run = await until(
    () => testContext().deps.models.CopyLeaders.findById(LATEST_COPY_LEADERS).lean(),
    (r) => !!r && r.refreshedAt >= asked,
  );
  assert.ok(run && run.refreshedAt >= asked, 'the refresh-copy-leaders job stored a run');
};

describe('copy leaders #integration', () => {
  const sharp = newWallet(); // buys sports YES at 0.40 three times; the market then trades at 0.60
  const loser = newWallet(); // buys sports YES at 0.70 three times; the market resolves NO
  const pundit = newWallet(); // buys politics NO at 0.30 three times (10 % fee); resolves NO
  const twice = newWallet(); // two winning trades only
  const reorged = newWallet(); // three winning trades, all withdrawn by a reorg
  const elsewhere = newWallet(); // three trades on a market never imported here
  const stale = newWallet(); // three winning trades before the window
  const crowd = newWallet(); // moves the sports market's price

  before(async () => {
    agent = await registerAgent({ name: 'copy-leaders' });
  });

  it('when the job has never run, then 503 not ready with a fix (the skill reads it as empty)', async () => {
    await testContext().deps.models.CopyLeaders.deleteOne({ _id: LATEST_COPY_LEADERS });
    for (const path of ['/api/sdk/wc/copy-leaders', '/api/sdk/copytrading/leaders']) {
      const res = await get(path);
      assert.equal(res.status, 503, path);
      assert.match(res.body.detail, /not yet computed/);
      assert.equal(res.body.error, res.body.detail);
      assert.match(res.body.fix, /refresh-copy-leaders/);
      assert.ok(Number(res.headers['retry-after']) > 0);
    }
  });

  it('when the daily job ran over recorded fills, then the wallets whose copies earned most lead, per category, with fees and slippage', async () => {
    const { deps } = testContext();
    const sports = await importedMarket('Sports');
    const lost = await importedMarket('Sports', { status: 'resolved', outcome: false, payoutYesMicro: 0 });
    const politics = await importedMarket('Politics', {
      feeRateBps: 1000,
      status: 'resolved',
      outcome: false,
      payoutYesMicro: 0,
    });
    const t0 = new Date(Date.now() - 24 * HOUR);
    const at = (ms: number) => new Date(t0.getTime() + ms);
    await deps.models.VenueFill.insertMany([
      fill(sports.externalId, sharp, at(0), 'buy', 'yes', 0.4, 100),
      fill(sports.externalId, sharp, at(HOUR), 'buy', 'yes', 0.4, 100),
      fill(sports.externalId, sharp, at(2 * HOUR), 'buy', 'yes', 0.4, 100),
      // 10 s after the third buy: a copy 30 s late pays 0.45.
      fill(sports.externalId, crowd, at(2 * HOUR + 10_000), 'buy', 'yes', 0.45, 50),
      fill(sports.externalId, crowd, at(3 * HOUR), 'buy', 'yes', 0.6, 50),
      ...[0, 1, 2].map((i) => fill(lost.externalId, loser, at(i * HOUR), 'buy', 'yes', 0.7, 10)),
      ...[0, 1, 2].map((i) => fill(politics.externalId, pundit, at(i * HOUR), 'buy', 'no', 0.3, 10)),
      ...[0, 1].map((i) => fill(politics.externalId, twice, at(i * HOUR), 'buy', 'no', 0.3, 10)),
      ...[0, 1, 2].map((i) =>
        fill(politics.externalId, reorged, at(i * HOUR), 'buy', 'no', 0.3, 10, { withdrawnAt: at(i * HOUR) }),
      ),
      ...[0, 1, 2].map((i) => fill(hex(32), elsewhere, at(i * HOUR), 'buy', 'no', 0.01, 1000)),
      ...[0, 1, 2].map((i) =>
        fill(
          politics.externalId,
          stale,
          new Date(Date.now() - 8 * 24 * HOUR + i * HOUR),
          'buy',
          'no',
          0.3,
          10,
        ),
      ),
    ]);

    await runSchedule();

    const wc = await get('/api/sdk/wc/copy-leaders');
    assert.equal(wc.status, 200, JSON.stringify(wc.body));
    assert.equal(wc.body.category, 'sports');
    assert.ok(Date.parse(wc.body.refreshed_at) > t0.getTime());
    const wcLeaders = wc.body.leaders as Leader[];
    // Three $10 copies: two at 0.405, one at 0.455 (the crowd's 0.45 + half a tick), marked at 0.60.
    assert.deepEqual(
      wcLeaders.find((l) => l.wallet === sharp),
      { wallet: sharp, backtest_copy_pnl_usdc: 12.82, slippage_cost_rate_pct: 5.1, trade_count: 3 },
    );
    for (const w of [loser, pundit, twice, reorged, elsewhere, stale, crowd])
      assert.ok(!wcLeaders.some((l) => l.wallet === w), w);
    for (let i = 1; i < wcLeaders.length; i++)
      assert.ok(wcLeaders[i - 1]!.backtest_copy_pnl_usdc >= wcLeaders[i]!.backtest_copy_pnl_usdc);

    const pol = await get('/api/sdk/copytrading/leaders', { category: 'Politics' });
    assert.equal(pol.status, 200);
    // Three NO copies at 0.305 paying 10 % × 0.305 a share in fees, each share paid $1.
    assert.deepEqual(
      (pol.body.leaders as Leader[]).find((l) => l.wallet === pundit),
      { wallet: pundit, backtest_copy_pnl_usdc: 65.36, slippage_cost_rate_pct: 1.67, trade_count: 3 },
    );
    assert.ok(!(pol.body.leaders as Leader[]).some((l) => l.wallet === sharp));

    const all = (await get('/api/sdk/copytrading/leaders')).body.leaders as Leader[];
    const order = all.map((l) => l.wallet).filter((w) => [sharp, pundit].includes(w));
    assert.deepEqual(order, [pundit, sharp]);

    const one = await get('/api/sdk/copytrading/leaders', { limit: 1 });
    assert.equal(one.body.leaders.length, 1);

    const none = await get('/api/sdk/copytrading/leaders', { category: 'no such category' });
    assert.equal(none.status, 200);
    assert.deepEqual(none.body.leaders, []);
  });

  it('when category or limit is invalid, then 422 with the field and a fix', async () => {
    for (const [query, field] of [
      [{ limit: 0 }, 'limit'],
      [{ limit: 11 }, 'limit'],
      [{ category: '' }, 'category'],
      [{ category: 'sports;drop' }, 'category'],
    ] as const) {
      const res = await get('/api/sdk/copytrading/leaders', query);
      assert.equal(res.status, 422, JSON.stringify(query));
      assert.deepEqual(res.body.detail[0].loc, ['query', field]);
      assert.ok(res.body.fix.length > 0);
    }
  });

  it('when /openapi.json is read, then both routes document the score and the 503', async () => {
    const doc = (await api().get('/openapi.json')).body;
    for (const path of ['/api/sdk/wc/copy-leaders', '/api/sdk/copytrading/leaders']) {
      const op = doc.paths[path].get;
      assert.match(op.description, /slippage/);
      assert.ok(op.responses['503'], path);
    }
  });
});
