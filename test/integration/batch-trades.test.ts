import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { MarketRecord } from '../../shared/domains/markets/market.model.js';
import { testContext } from '../support/context.js';
import { makeMarket, spend, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { assertAgentConserved, assertBookMatchesFills } from '../support/invariants.js';

const auth = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });
const batch = (a: RegisteredAgent, body: Record<string, unknown>) =>
  api().post('/api/sdk/trades/batch').set(auth(a)).send(body);
const legs = (markets: MarketRecord[], amount = 10) =>
  markets.map((m, i) => ({ market_id: m._id, side: i % 2 ? 'no' : 'yes', amount }));
const markets = (n: number) => Promise.all(Array.from({ length: n }, () => makeMarket()));

const LEG_KEYS = [
  'market_id',
  'success',
  'trade_id',
  'error',
  'cost',
  'shares',
  'price',
  'dry_run_price',
  'slippage',
  'aborted',
];
interface Leg {
  market_id: string;
  success: boolean;
  trade_id: string;
  aborted: boolean;
  cost: number;
  shares: number;
  price: number;
  dry_run_price: number;
  slippage: number;
}
const LEG_NUMBERS = ['cost', 'shares', 'price', 'dry_run_price', 'slippage'];

/** The response shape of client-contract §4.4, numbers never null. */
function assertBatchShape(body: Record<string, unknown>, n: number) {
  for (const key of [
    'success',
    'results',
    'total_cost',
    'failed_count',
    'warnings',
    'execution_time_ms',
    'dry_run',
  ])
    assert.ok(key in body, `answer has ${key}`);
  for (const key of ['total_cost', 'failed_count', 'execution_time_ms'])
    assert.equal(typeof body[key], 'number', `${key} is a number`);
  const results = body.results as Record<string, unknown>[];
  assert.equal(results.length, n);
  for (const leg of results) {
    for (const key of LEG_KEYS) assert.ok(key in leg, `leg has ${key}`);
    for (const key of LEG_NUMBERS) assert.equal(typeof leg[key], 'number', `leg ${key} is a number`);
  }
}

async function state(agent: RegisteredAgent) {
  const { models } = testContext().deps;
  const [portfolio, trades, limits] = await Promise.all([
    api().get('/api/sdk/portfolio').set(auth(agent)).expect(200),
    models.Trade.countDocuments({ agentId: agent.agent_id }),
    api().get(`/api/sdk/agents/${agent.agent_id}/cooldowns`).set(auth(agent)).expect(200),
  ]);
  return {
    balance: portfolio.body.sim_balance as number,
    trades,
    tradesToday: limits.body.daily.trades_today as number,
  };
}

describe('batch trades #integration', () => {
  it('when an atomic batch of 30 legs is sent, then a dry run projects it and the live batch fills every leg once', async () => {
    const [agent, ms] = await Promise.all([registerAgent(), markets(30)]);
    const body = { trades: legs(ms), atomic: true, source: 'sdk:batch' };

    const dry = await batch(agent, { ...body, dry_run: true }).expect(200);
    assertBatchShape(dry.body, 30);
    assert.equal(dry.body.dry_run, true);
    assert.equal(dry.body.success, true);
    assert.equal(dry.body.applied, 'none');
    assert.equal((await state(agent)).trades, 0, 'a dry run records nothing');

    const res = await batch(agent, body).expect(200);
    assertBatchShape(res.body, 30);
    assert.equal(
      res.body.success,
      true,
      JSON.stringify(res.body.results.find((r: { success: boolean }) => !r.success)),
    );
    assert.equal(res.body.applied, 'all');
    assert.equal(res.body.atomic, true);
    assert.equal(res.body.dry_run, false);
    assert.equal(res.body.failed_count, 0);
    assert.equal(res.body.total_cost, 300);
    assert.deepEqual(res.body.warnings, []);
    const ids = new Set<string>();
    res.body.results.forEach((leg: Leg, i: number) => {
      assert.equal(leg.success, true);
      assert.equal(leg.aborted, false);
      assert.equal(leg.market_id, ms[i]!._id);
      assert.equal(leg.cost, 10);
      assert.ok(leg.shares > 0);
      ids.add(leg.trade_id);
      // The projection is what the live leg filled (the dry run is the live plan).
      assert.equal(leg.price, leg.dry_run_price);
      assert.equal(leg.price, dry.body.results[i].price);
      assert.ok(leg.slippage >= 0 && leg.slippage <= 0.02, String(leg.slippage));
    });
    assert.equal(ids.size, 30, 'one trade per leg');

    const after = await state(agent);
    assert.equal(after.balance, 10_000 - 300);
    assert.equal(after.trades, 30);
    assert.equal(after.tradesToday, 30);
    const stored = await testContext().deps.models.Trade.find({ agentId: agent.agent_id }).lean();
    assert.ok(stored.every((t) => t.status === 'filled' && t.source === 'sdk:batch' && t.action === 'buy'));
    await assertAgentConserved(agent.agent_id);
    await Promise.all(ms.map((m) => assertBookMatchesFills(m._id)));
  });

  it('when one leg of an atomic batch is refused at admission, then nothing is applied and every admission is given back', async () => {
    const [agent, ms, resolved] = await Promise.all([
      registerAgent(),
      markets(29),
      makeMarket({ status: 'resolved', outcome: true, resolvedAt: new Date() }),
    ]);

    // A closed market among the legs: the whole batch is refused, the others aborted.
    const closed = await batch(agent, { trades: [...legs(ms), ...legs([resolved])], atomic: true }).expect(
      200,
    );
    assertBatchShape(closed.body, 30);
    assert.equal(closed.body.success, false);
    assert.equal(closed.body.applied, 'none');
    assert.equal(closed.body.failed_count, 30);
    assert.equal(closed.body.total_cost, 0);
    assert.equal(closed.body.results[29].error_code, 'market_resolved');
    for (const leg of closed.body.results) {
      assert.equal(leg.success, false);
      assert.equal(leg.trade_id, null);
      assert.equal(leg.aborted, true);
      assert.equal(leg.cost, 0);
    }
    assert.match(closed.body.results[0].error, /atomic batch places all legs or none/);
    assert.deepEqual(await state(agent), { balance: 10_000, trades: 0, tradesToday: 0 });

    // One leg beyond max_slippage (a thin book): refused as a whole too.
    const thin = await makeMarket({ b: 20 });
    const slip = await batch(agent, {
      trades: [...legs(ms.slice(0, 5)), { market_id: thin._id, side: 'yes', amount: 50 }],
      atomic: true,
    }).expect(200);
    assert.equal(slip.body.applied, 'none');
    assert.equal(slip.body.results[5].error_code, 'slippage_exceeded');
    assert.ok(slip.body.results[5].slippage > 0.02);
    assert.deepEqual(await state(agent), { balance: 10_000, trades: 0, tradesToday: 0 });

    // The balance covers every leg alone but not the total.
    await spend(agent, 9_800);
    const before = await state(agent);
    const poor = await batch(agent, { trades: legs(ms), atomic: true }).expect(200);
    assert.equal(poor.body.applied, 'none');
    assert.equal(poor.body.results[0].error_code, 'insufficient_balance');
    assert.match(poor.body.results[0].error, /290 \$SIM in total, 200 available/);
    assert.deepEqual(await state(agent), before);
    await assertAgentConserved(agent.agent_id);
  });

  it('when an atomic batch would pass the daily trade cap, then it is refused whole and its counts are given back', async () => {
    const [agent, ms] = await Promise.all([registerAgent(), markets(30)]);
    assert.equal((await batch(agent, { trades: legs(ms), atomic: true }).expect(200)).body.applied, 'all');
    // 30 of the default 50 are used: a second batch of 30 passes 20 admissions, then the cap.
    const capped = await batch(agent, { trades: legs(ms), atomic: true }).expect(200);
    assert.equal(capped.body.applied, 'none');
    assert.ok(
      capped.body.results.every((r: { error_code: string }) => r.error_code === 'daily_limit_reached'),
    );
    assert.match(capped.body.results[0].hint, /midnight UTC/, 'the refusal says how to fix it');
    assert.deepEqual(await state(agent), { balance: 9_700, trades: 30, tradesToday: 30 });
    // The 20 counts the refused batch took were given back: 20 more fit.
    const rest = await batch(agent, { trades: legs(ms.slice(0, 20)), atomic: true }).expect(200);
    assert.equal(rest.body.applied, 'all');
    assert.equal((await state(agent)).tradesToday, 50);
  });

  it('when a leg of an admitted atomic batch fails in execution (the price moved in between), then the answer says which legs filled', async () => {
    const [agent, other, ms] = await Promise.all([registerAgent(), registerAgent(), markets(5)]);
    const { deps } = testContext();
    const queues = deps.queues;
    const original = queues.enqueueAndWait;
    const race: { moved?: ReturnType<typeof trade> } = {};
    // Between admission and execution: another agent's big buy moves the first leg's market past its limit.
    queues.enqueueAndWait = (async (...args: Parameters<typeof original>) => {
      const [name, data] = args as unknown as [string, { tradeId: string }];
      const t = name === 'execute-trade' ? await deps.models.Trade.findById(data.tradeId).lean() : null;
      if (t && t.agentId === agent.agent_id) {
        race.moved ??= trade(other, { market_id: ms[0]!._id, side: 'yes', amount: 500 });
        await race.moved;
      }
      return original.apply(queues, args);
    }) as typeof original;
    let res;
    try {
      res = await batch(agent, { trades: legs(ms), atomic: true }).expect(200);
    } finally {
      queues.enqueueAndWait = original;
    }
    assert.equal((await race.moved!).body.success, true, 'the other agent moved the price');
    assertBatchShape(res.body, 5);
    assert.equal(res.body.success, false);
    assert.equal(res.body.applied, 'partial');
    assert.equal(res.body.failed_count, 1);
    assert.equal(res.body.total_cost, 40);
    assert.equal(res.body.results[0].error_code, 'limit_not_met');
    assert.equal(res.body.results[0].aborted, false, 'it was placed, and refused by the book');
    assert.ok(res.body.results.slice(1).every((r: Leg) => r.success));
    assert.match(res.body.warnings.join(' '), /partially applied.*4 leg\(s\) filled/);
    assert.equal((await state(agent)).balance, 10_000 - 40);
    await assertAgentConserved(agent.agent_id);
  });

  it('when a non-atomic batch has bad legs, then the good legs fill and each bad leg says why (partial)', async () => {
    const [agent, ms, resolved, thin] = await Promise.all([
      registerAgent(),
      markets(27),
      makeMarket({ status: 'resolved', outcome: true, resolvedAt: new Date() }),
      makeMarket({ b: 20 }),
    ]);
    const res = await batch(agent, {
      trades: [
        ...legs(ms),
        { market_id: resolved._id, side: 'yes', amount: 10 },
        { market_id: randomUUID(), side: 'yes', amount: 10 },
        { market_id: thin._id, side: 'yes', amount: 50 },
      ],
    }).expect(200);
    assertBatchShape(res.body, 30);
    assert.equal(res.body.success, false);
    assert.equal(res.body.atomic, false);
    assert.equal(res.body.applied, 'partial');
    assert.equal(res.body.failed_count, 3);
    assert.equal(res.body.total_cost, 270);
    assert.ok(res.body.results.slice(0, 27).every((r: { success: boolean }) => r.success));
    const [closed, unknown, slipped] = res.body.results.slice(27);
    assert.equal(closed.error_code, 'market_resolved');
    assert.equal(unknown.error_code, 'market_not_found');
    assert.equal(slipped.error_code, 'slippage_exceeded');
    assert.equal(slipped.aborted, true);
    for (const leg of [closed, unknown, slipped]) {
      assert.equal(leg.success, false);
      assert.equal(leg.trade_id, null);
      assert.equal(leg.cost, 0);
      assert.equal(leg.aborted, true, 'refused by its projection: not placed');
    }
    assert.deepEqual(await state(agent), { balance: 9_730, trades: 27, tradesToday: 27 });
    await assertAgentConserved(agent.agent_id);
  });

  it('when a batch is malformed, then it is a 422 with a fix: 31 legs, a sell, atomic legs on one market, atomic off sim', async () => {
    const [agent, m] = await Promise.all([registerAgent(), makeMarket()]);
    const leg = { market_id: m._id, side: 'yes', amount: 5 };
    const cases = [
      { trades: Array.from({ length: 31 }, () => leg) },
      { trades: [{ ...leg, action: 'sell' }] },
      { trades: [leg, leg], atomic: true },
      { trades: [leg], atomic: true, venue: 'polymarket' },
      { trades: [{ ...leg, amount: 0 }] },
    ];
    for (const body of cases) {
      const res = await batch(agent, body);
      assert.equal(res.status, 422, JSON.stringify(body));
      assert.equal(typeof res.body.fix, 'string');
    }
    assert.equal((await state(agent)).trades, 0);
  });
});
