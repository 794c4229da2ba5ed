import assert from 'node:assert/strict';
import { positionId } from '../../shared/domains/positions/position.model.js';
import { settleMarket } from '../../shared/domains/settlement/settle-market.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { assertAgentConserved, assertBookMatchesFills } from '../support/invariants.js';

const operator = () => ({ Authorization: `Bearer ${testContext().operatorToken}` });
const resolve = (marketId: string, outcome: boolean | 'void') =>
  api().post(`/api/admin/markets/${marketId}/resolve`).set(operator()).send({ outcome });

describe('a 50-50 (void) resolution on sim #integration', function () {
  this.timeout(60_000);

  it('when an operator voids a sim market, then every YES and NO share pays exactly 0.5 $SIM once, and the ledger audit balances', async () => {
    const { deps } = testContext();
    const market = await makeMarket({ p0: 0.4 });
    const [yes, no, both] = await Promise.all([registerAgent(), registerAgent(), registerAgent()]);
    const buy = async (agent: RegisteredAgent, side: 'yes' | 'no', amount: number) => {
      const res = await trade(agent, { market_id: market._id, side, amount });
      assert.equal(res.body.success, true, JSON.stringify(res.body));
    };
    await buy(yes, 'yes', 33.33);
    await buy(no, 'no', 21.7);
    await buy(both, 'yes', 12.34);
    await buy(both, 'no', 9.99);
    const holders = [yes, no, both];
    const held = await Promise.all(
      holders.map(async (a) => ({
        position: (await deps.models.Position.findById(positionId(a.agent_id, market._id, 'sim')).lean())!,
        balance: (await deps.models.Agent.findById(a.agent_id).lean())!.balanceMicro,
      })),
    );
    // Each side's shares pay half, rounded down to the micro-unit (as the CTF rounds a redemption).
    const owed = held.map(
      ({ position: p }) => Math.floor(p.sharesYesMicro / 2) + Math.floor(p.sharesNoMicro / 2),
    );

    const res = await resolve(market._id, 'void');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.outcome, null);
    assert.deepEqual(res.body.payout_per_share, { yes: 0.5, no: 0.5 });
    assert.equal(res.body.settlement.state, 'completed');
    assert.equal(res.body.settlement.positions, 3);
    assert.equal(res.body.settlement.payout, owed.reduce((s, x) => s + x, 0) / 1e6);

    for (const [i, a] of holders.entries()) {
      const p = (await deps.models.Position.findById(positionId(a.agent_id, market._id, 'sim')).lean())!;
      assert.equal(p.status, 'settled');
      assert.equal(p.payoutMicro, owed[i]);
      const agent = (await deps.models.Agent.findById(a.agent_id).lean())!;
      assert.equal(agent.balanceMicro, held[i]!.balance + owed[i]!);
      await assertAgentConserved(a.agent_id);
    }
    await assertBookMatchesFills(market._id);

    // The same resolution again answers the same; another is refused; settlement again pays nothing.
    const again = await resolve(market._id, 'void');
    assert.equal(again.status, 200, again.text);
    assert.equal(again.body.outcome, null);
    const other = await resolve(market._id, true);
    assert.equal(other.status, 409);
    assert.ok(other.body.fix);
    assert.match(other.body.error, /void/);
    const rerun = await settleMarket(deps.models, market._id, deps.clock);
    assert.equal(rerun.positions, 0);
    for (const [i, a] of holders.entries())
      assert.equal(
        (await deps.models.Agent.findById(a.agent_id).lean())!.balanceMicro,
        held[i]!.balance + owed[i]!,
      );

    const view = await api()
      .get(`/api/sdk/markets/${market._id}`)
      .set('Authorization', `Bearer ${yes.api_key}`)
      .expect(200);
    assert.equal(view.body.market.status, 'resolved');
    assert.equal(view.body.market.outcome, null);
    assert.equal(view.body.market.current_price, 0.5);
    const positions = await api()
      .get('/api/sdk/positions?venue=sim&status=all')
      .set('Authorization', `Bearer ${both.api_key}`)
      .expect(200);
    const row = positions.body.positions.find((p: { market_id: string }) => p.market_id === market._id);
    assert.equal(row.status, 'settled');
    assert.equal(row.payout, owed[2]! / 1e6);

    const audit = await api().get('/api/admin/audit').set(operator()).expect(200);
    const ours = (audit.body.differences as { id: string }[]).filter((d) =>
      [market._id, ...holders.map((a) => a.agent_id)].some((id) => d.id.includes(id)),
    );
    assert.deepEqual(ours, []);
  });
});
