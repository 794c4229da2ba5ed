import assert from 'node:assert/strict';
import { renewNameKeys } from '../../shared/domains/agents/renew-name-keys.js';
import { remarkLeaderboard } from '../../shared/domains/reads/leaderboard.js';
import { remarkVenueBoards } from '../../shared/domains/reads/venue-boards.js';
import { testContext } from '../support/context.js';
import { LEADERBOARD_ENTRY_FIELDS } from '../support/contract-fields.js';
import { makeMarket, trade } from '../support/factories.js';
import { externalTrader, importedMarket, signedBuy } from '../support/polymarket-traders.js';
import { api, registerAgent } from '../support/http.js';

const board = async () => (await api().get('/api/leaderboard/sdk-agents?limit=500')).body;

describe('leaderboard #integration', () => {
  it('when agents trade and a market settles, then they are ranked by total P&L with open positions marked, and only traders appear', async () => {
    const { deps, operatorToken } = testContext();
    const [winner, loser, holder, idle] = await Promise.all([
      registerAgent({ name: 'lb-winner' }),
      registerAgent({ name: 'lb-loser' }),
      registerAgent({ name: 'lb-holder' }),
      registerAgent({ name: 'lb-idle' }),
    ]);
    const settled = await makeMarket({ p0: 0.5 });
    const open = await makeMarket({ p0: 0.5 });
    await trade(winner, { market_id: settled._id, side: 'yes', amount: 200 });
    await trade(loser, { market_id: settled._id, side: 'no', amount: 300 });
    await trade(holder, { market_id: open._id, side: 'yes', amount: 100 });
    // Someone else pushes the open market up: the holder's position gains value while still open.
    const pusher = await registerAgent({ name: 'lb-pusher' });
    for (let i = 0; i < 4; i++) await trade(pusher, { market_id: open._id, side: 'yes', amount: 500 });
    const resolved = await api()
      .post(`/api/admin/markets/${settled._id}/resolve`)
      .set('Authorization', `Bearer ${operatorToken}`)
      .send({ outcome: true });
    assert.equal(resolved.status, 200);
    await remarkLeaderboard(deps.models, deps.clock());

    const res = await board();
    const byName = (name: string) => res.entries.find((e: { name: string }) => e.name === name);
    const w = byName('lb-winner');
    const l = byName('lb-loser');
    const h = byName('lb-holder');
    assert.ok(w && l && h, 'traders are listed');
    assert.equal(byName('lb-idle'), undefined, 'an agent without trades is not listed');
    assert.ok(w.total_pnl > 0 && l.total_pnl === -300, `${w.total_pnl} / ${l.total_pnl}`);
    assert.ok(h.total_pnl > 0, 'an open position is marked at the current price');
    assert.ok(w.rank < l.rank && h.rank < l.rank);
    const ranks = res.entries.map((e: { rank: number }) => e.rank);
    assert.deepEqual(
      ranks,
      ranks.map((_: number, i: number) => i + 1),
    );
    const pnls = res.entries.map((e: { total_pnl: number }) => e.total_pnl);
    assert.deepEqual(
      pnls,
      [...pnls].sort((a, b) => b - a),
      'ranked by total P&L',
    );
    assert.equal(w.win_count, 1);
    assert.equal(l.loss_count, 1);
    assert.equal(w.is_claimed, false);
    assert.equal(w.trades_count, 1);
    for (const key of LEADERBOARD_ENTRY_FIELDS) assert.ok(key in w, key);
    assert.equal(res.total_agents, await deps.models.Agent.countDocuments({ simTradesCount: { $gt: 0 } }));
    assert.ok(idle);
  });

  it('when a later agent takes a name that looks like an earlier one (case, a Greek alpha, spaces), then the board shows it with its id, and the first keeps its name plain', async () => {
    const { deps } = testContext();
    // An i in every run: its capital is where case and lookalikes meet (a capital I reads as an l).
    const stem = `Alphi${Date.now().toString(36)}`;
    const original = await registerAgent({ name: stem });
    const copies = await Promise.all(
      [stem.toUpperCase(), `\u0391${stem.slice(1)}`, stem.split('').join(' ')].map((name) =>
        registerAgent({ name }),
      ),
    );
    const market = await makeMarket({ p0: 0.5 });
    for (const agent of [original, ...copies])
      await trade(agent, { market_id: market._id, side: 'yes', amount: 1 });
    await remarkLeaderboard(deps.models, deps.clock());

    const entries = (await board()).entries as { agent_id: string; name: string }[];
    const shown = (id: string) => entries.find((e) => e.agent_id === id)?.name;
    assert.equal(shown(original.agent_id), stem);
    for (const copy of copies)
      assert.match(shown(copy.agent_id) ?? '', new RegExp(`\\(${copy.agent_id.slice(0, 8)}\\)$`));
    const names = [original, ...copies].map((a) => shown(a.agent_id));
    assert.equal(new Set(names).size, names.length, JSON.stringify(names));
  });

  it('when an older agent renames itself into a newer agent’s name, then the newer one keeps its name plain and the renamed one shows its id', async () => {
    const { deps } = testContext();
    const elder = await registerAgent({ name: `elder-${Date.now().toString(36)}` });
    const name = `Bravi${Date.now().toString(36)}`;
    const genuine = await registerAgent({ name });
    const renamed = await api()
      .patch('/api/sdk/agents/me/settings')
      .set('Authorization', `Bearer ${elder.api_key}`)
      .send({ name: name.toUpperCase() });
    assert.equal(renamed.status, 200, JSON.stringify(renamed.body));
    const market = await makeMarket({ p0: 0.5 });
    for (const agent of [elder, genuine])
      await trade(agent, { market_id: market._id, side: 'yes', amount: 1 });
    await remarkLeaderboard(deps.models, deps.clock());

    const entries = (await board()).entries as { agent_id: string; name: string }[];
    const shown = (id: string) => entries.find((e) => e.agent_id === id)?.name;
    assert.equal(shown(genuine.agent_id), name);
    assert.equal(shown(elder.agent_id), `${name.toUpperCase()} (${elder.agent_id.slice(0, 8)})`);
  });

  it('when an agent that never traded holds a name under a key of an earlier version, then a start renews its key and a later lookalike on the board shows its id', async () => {
    const { deps } = testContext();
    const stem = `Charli${Date.now().toString(36)}`;
    const first = await registerAgent({ name: stem });
    // Stored by an earlier version: no key, or a key of an earlier skeleton.
    await deps.models.Agent.updateOne({ _id: first.agent_id }, { $set: { nameKey: null } });
    const copy = await registerAgent({ name: stem.toUpperCase() });
    const market = await makeMarket({ p0: 0.5 });
    await trade(copy, { market_id: market._id, side: 'yes', amount: 1 });

    assert.ok((await renewNameKeys(deps.models)) >= 1);
    assert.equal(await renewNameKeys(deps.models), 0, 'a second run changes nothing');
    await remarkLeaderboard(deps.models, deps.clock());
    const entries = (await board()).entries as { agent_id: string; name: string }[];
    const shown = entries.find((e) => e.agent_id === copy.agent_id)?.name;
    assert.equal(shown, `${stem.toUpperCase()} (${copy.agent_id.slice(0, 8)})`);
  });

  it('when an agent is suspended, then it keeps its place and history on the board', async () => {
    const { deps } = testContext();
    const agent = await registerAgent({ name: 'lb-suspended' });
    await trade(agent, { market_id: (await makeMarket())._id, side: 'yes', amount: 5 });
    await deps.models.Agent.updateOne({ _id: agent.agent_id }, { $set: { status: 'suspended' } });
    await remarkLeaderboard(deps.models, deps.clock());
    const entry = (await board()).entries.find((e: { id: string }) => e.id === agent.agent_id);
    assert.equal(entry.status, 'suspended');
    assert.equal(entry.trades_count, 1);
  });

  it('GET /api/leaderboard/all answers every list, never null, without auth; a Polymarket trader is on its venue’s board', async () => {
    const trader = await externalTrader();
    const market = await importedMarket(trader.agent);
    const bought = await signedBuy(trader, market, 10);
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    // The venue boards are read models, written by the minute's re-mark.
    await remarkVenueBoards(testContext().deps.models, new Date());
    const res = await api().get('/api/leaderboard/all?limit=50');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.ok(res.body.sdk_agents.length <= 50);
    assert.deepEqual(res.body.native_agents, []);
    assert.ok(Array.isArray(res.body.kalshi));
    const whole = await api().get('/api/leaderboard/polymarket?limit=500');
    const entry = whole.body.entries.find((e: { id: string }) => e.id === trader.agent.agent_id);
    assert.ok(entry, 'the agent with a Polymarket trade ranks on the polymarket board');
    assert.equal(entry.trades_count, 1);
    const page = await api().get('/api/leaderboard/polymarket?limit=50');
    assert.ok(res.body.polymarket.length >= 1);
    assert.deepEqual(
      res.body.polymarket.map((e: { id: string }) => e.id),
      page.body.entries.map((e: { id: string }) => e.id),
      'the first page of GET /api/leaderboard/polymarket',
    );
    // The public page has a tab per venue; the Polymarket tab lists the same board in pUSD.
    const html = await api().get('/leaderboard?venue=polymarket').expect(200);
    assert.match(html.text, /<a href="\/leaderboard\?venue=polymarket"\s+aria-current="page"/);
    assert.match(html.text, /P&amp;L \(pUSD\)/);
    assert.ok(html.text.includes(String(entry.name)), 'the trader is listed on the tab');
    const sim = await api().get('/leaderboard').expect(200);
    assert.match(sim.text, /<a href="\/leaderboard"\s+aria-current="page"/);
    assert.match(sim.text, /P&amp;L \(\$SIM\)/);
  });
});
