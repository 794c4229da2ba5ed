import assert from 'node:assert/strict';
import { remarkVenueBoards } from '../../shared/domains/reads/venue-boards.js';
import { testContext } from '../support/context.js';
import { LEADERBOARD_ENTRY_FIELDS } from '../support/contract-fields.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';

const get = (agent: RegisteredAgent | null, path: string) => {
  const req = api().get(path);
  return agent ? req.set('Authorization', `Bearer ${agent.api_key}`) : req;
};

const buy = async (
  agent: RegisteredAgent,
  marketId: string,
  side: string,
  amount: number,
  skill?: string,
) => {
  const res = await trade(agent, { market_id: marketId, side, amount, ...(skill && { skill_slug: skill }) });
  assert.equal(res.body.success, true, JSON.stringify(res.body));
  return res.body;
};

/** Every position row of the agent, by market id. */
async function positionsOf(agent: RegisteredAgent) {
  const res = await get(agent, '/api/sdk/positions?status=all');
  assert.equal(res.status, 200);
  return new Map<string, { pnl: number; realized_pnl: number; shares_yes: number }>(
    res.body.positions.map((p: { market_id: string }) => [p.market_id, p]),
  );
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6;

/** Every entry of a venue board, page by page. */
async function wholeBoard(venue: string, query = '') {
  const entries: Record<string, unknown>[] = [];
  for (let offset = 0; ; offset += 500) {
    const res = await get(null, `/api/leaderboard/${venue}?limit=500&offset=${offset}${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    entries.push(...res.body.entries);
    if (offset + 500 >= res.body.total_count) return { ...res.body, entries };
  }
}

describe('skill outcomes, venue leaderboards and expiring positions #integration', () => {
  it('when trades carry skill slugs, then GET /api/sdk/outcomes?skill= reports trades, P&L, wins and losses of the positions the skill opened', async () => {
    const { operatorToken } = testContext();
    const agent = await registerAgent({ name: 'outcomes-agent' });
    const [sold, settled, open, other, mixed] = await Promise.all([
      makeMarket(),
      makeMarket(),
      makeMarket(),
      makeMarket(),
      makeMarket(),
    ]);
    const bought = await buy(agent, sold._id, 'yes', 100, 'alpha');
    const sell = await trade(agent, {
      market_id: sold._id,
      side: 'yes',
      action: 'sell',
      shares: bought.shares_bought,
      skill_slug: 'alpha',
    });
    assert.equal(sell.body.success, true, JSON.stringify(sell.body));
    await buy(agent, settled._id, 'no', 50, 'alpha');
    await buy(agent, open._id, 'yes', 40, 'alpha');
    await buy(agent, other._id, 'yes', 30, 'beta');
    // Opened without a skill: a later alpha buy there does not make the position alpha's.
    await buy(agent, mixed._id, 'yes', 20);
    await buy(agent, mixed._id, 'yes', 20, 'alpha');
    const resolved = await api()
      .post(`/api/admin/markets/${settled._id}/resolve`)
      .set('Authorization', `Bearer ${operatorToken}`)
      .send({ outcome: false });
    assert.equal(resolved.status, 200);

    const rows = await positionsOf(agent);
    const alpha = await get(agent, '/api/sdk/outcomes?skill=alpha');
    assert.equal(alpha.status, 200, JSON.stringify(alpha.body));
    const o = alpha.body;
    // The fields the MCP client reads are numbers (client-contract §6.4), and the v2 fields are there.
    for (const key of [
      'trades',
      'pnl',
      'wins',
      'losses',
      'settled_pnl',
      'resolved_markets',
      'settled_wins',
      'settled_losses',
    ])
      assert.equal(typeof o[key], 'number', key);
    assert.deepEqual(Object.keys(o.confidence_breakdown).sort(), ['mirror', 'native', 'settlement']);
    assert.equal(o.skill, 'alpha');
    assert.equal(o.trades, 5, 'four alpha buys and one alpha sell');
    const expectedPnl = round6([sold, settled, open].reduce((s, m) => s + rows.get(m._id)!.pnl, 0));
    assert.equal(o.pnl, expectedPnl);
    assert.ok(rows.get(sold._id)!.realized_pnl < 0, 'a round trip on the book loses the spread');
    assert.ok(rows.get(settled._id)!.realized_pnl > 0, 'NO on a market resolved NO wins');
    assert.equal(o.wins, 1);
    assert.equal(o.losses, 1);
    assert.equal(o.settled_wins, 1);
    assert.equal(o.settled_losses, 0);
    assert.equal(o.resolved_markets, 1);
    assert.equal(o.settled_pnl, rows.get(settled._id)!.realized_pnl);
    assert.deepEqual(o.confidence_breakdown, { settlement: 1, native: 1, mirror: 0 });
    assert.equal(o.open_positions, 1);

    const beta = (await get(agent, '/api/sdk/outcomes?skill=beta')).body;
    assert.equal(beta.trades, 1);
    assert.equal(beta.pnl, rows.get(other._id)!.pnl);
    assert.equal(beta.wins + beta.losses, 0);

    const later = new Date(Date.now() + 60_000).toISOString();
    const none = (await get(agent, `/api/sdk/outcomes?skill=alpha&since=${encodeURIComponent(later)}`)).body;
    assert.deepEqual(
      [none.trades, none.pnl, none.wins, none.losses, none.settled_pnl, none.resolved_markets],
      [0, 0, 0, 0, 0, 0],
    );
    const unknown = (await get(agent, '/api/sdk/outcomes?skill=never-used')).body;
    assert.deepEqual([unknown.trades, unknown.pnl, unknown.wins, unknown.losses], [0, 0, 0, 0]);

    const missing = await get(agent, '/api/sdk/outcomes?skill_slug=alpha');
    assert.equal(missing.status, 422);
    assert.equal(typeof missing.body.fix, 'string');
    assert.equal((await get(null, '/api/sdk/outcomes?skill=alpha')).status, 401);
  });

  it('when agents trade on sim, then GET /api/leaderboard/sim ranks them by their sim P&L with the entry fields, and trader_type=human lists nobody', async () => {
    const { operatorToken } = testContext();
    const [winner, loser] = await Promise.all([
      registerAgent({ name: 'venue-lb-winner' }),
      registerAgent({ name: 'venue-lb-loser' }),
    ]);
    const market = await makeMarket();
    await buy(winner, market._id, 'yes', 200);
    await buy(loser, market._id, 'no', 300);
    const resolved = await api()
      .post(`/api/admin/markets/${market._id}/resolve`)
      .set('Authorization', `Bearer ${operatorToken}`)
      .send({ outcome: true });
    assert.equal(resolved.status, 200);
    // The boards are read models: the minute's re-mark writes them.
    await remarkVenueBoards(testContext().deps.models, new Date());

    const board = await wholeBoard('sim', '&trader_type=agent');
    assert.equal(board.currency, '$SIM');
    assert.equal(typeof board.marked_at, 'string');
    assert.equal(board.venue, 'sim');
    assert.equal(board.trader_type, 'agent');
    assert.equal(board.total_count, board.entries.length);
    const byId = (id: string) => board.entries.find((e: Record<string, unknown>) => e.id === id)!;
    const w = byId(winner.agent_id);
    const l = byId(loser.agent_id);
    assert.ok(w && l, 'both traders are listed');
    assert.equal(w.total_pnl, (await positionsOf(winner)).get(market._id)!.pnl);
    assert.equal(l.total_pnl, -300);
    assert.deepEqual([w.win_count, w.loss_count, w.trades_count, w.win_rate], [1, 0, 1, 1]);
    assert.deepEqual([l.win_count, l.loss_count, l.win_rate], [0, 1, 0]);
    assert.ok((w.rank as number) < (l.rank as number));
    for (const key of LEADERBOARD_ENTRY_FIELDS) assert.ok(key in w, key);
    const pnls = board.entries.map((e: { total_pnl: number }) => e.total_pnl);
    assert.deepEqual(
      pnls,
      [...pnls].sort((a: number, b: number) => b - a),
    );
    assert.deepEqual(
      board.entries.map((e: { rank: number }) => e.rank),
      board.entries.map((_: unknown, i: number) => i + 1),
    );

    const all = (await get(null, '/api/leaderboard/sim?limit=1')).body;
    assert.equal(all.trader_type, 'all');
    assert.equal(all.total_count, board.total_count);
    const humans = (await get(null, '/api/leaderboard/sim?trader_type=human')).body;
    assert.deepEqual(humans, {
      venue: 'sim',
      trader_type: 'human',
      currency: '$SIM',
      marked_at: board.marked_at,
      entries: [],
      total_count: 0,
    });
    const kalshi = await wholeBoard('kalshi');
    assert.ok(
      !kalshi.entries.some((e: { id: string }) => e.id === winner.agent_id),
      'sim trades stay off kalshi',
    );
    // The fixed boards keep their routes.
    assert.ok(Array.isArray((await get(null, '/api/leaderboard/all')).body.sdk_agents));
    const bad = await get(null, '/api/leaderboard/nasdaq');
    assert.equal(bad.status, 422);
    assert.equal(typeof bad.body.fix, 'string');
  });

  it('when markets resolve soon, then GET /api/sdk/positions/expiring lists the open positions in them within hours, soonest first', async () => {
    const agent = await registerAgent({ name: 'expiring-agent' });
    const hour = 3600_000;
    const [in2h, in30h, in7d, past] = await Promise.all([
      makeMarket({ resolvesAt: new Date(Date.now() + 2 * hour) }),
      makeMarket({ resolvesAt: new Date(Date.now() + 30 * hour) }),
      makeMarket({ resolvesAt: new Date(Date.now() + 7 * 24 * hour) }),
      makeMarket({ resolvesAt: new Date(Date.now() + 5 * hour) }),
    ]);
    for (const m of [in2h, in30h, in7d, past]) await buy(agent, m._id, 'yes', 10);
    // A position sold out is not expiring: nothing is held.
    const held = (await positionsOf(agent)).get(past._id)!;
    const sellAll = await trade(agent, {
      market_id: past._id,
      side: 'yes',
      action: 'sell',
      shares: held.shares_yes,
    });
    assert.equal(sellAll.body.success, true, JSON.stringify(sellAll.body));

    const day = await get(agent, '/api/sdk/positions/expiring');
    assert.equal(day.status, 200, JSON.stringify(day.body));
    assert.equal(day.body.hours, 24);
    assert.deepEqual(
      day.body.positions.map((p: { market_id: string }) => p.market_id),
      [in2h._id],
    );
    const row = day.body.positions[0];
    for (const key of [
      'market_id',
      'question',
      'shares_yes',
      'shares_no',
      'current_value',
      'pnl',
      'status',
      'venue',
      'sources',
      'resolves_at',
    ])
      assert.ok(key in row, key);
    assert.equal(typeof row.current_value, 'number');
    assert.ok(row.hours_to_resolution > 1.9 && row.hours_to_resolution <= 2, String(row.hours_to_resolution));

    const two = (await get(agent, '/api/sdk/positions/expiring?hours=48')).body;
    assert.deepEqual(
      two.positions.map((p: { market_id: string }) => p.market_id),
      [in2h._id, in30h._id],
    );
    assert.equal(two.count, 2);
    const week = (await get(agent, '/api/sdk/positions/expiring?hours=168')).body;
    assert.equal(week.count, 3);
    const bad = await get(agent, '/api/sdk/positions/expiring?hours=0');
    assert.equal(bad.status, 422);
    assert.equal(typeof bad.body.fix, 'string');
  });
});
