import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { z } from 'zod';
import type { adminEndpoints } from '../../api/endpoints/admin.endpoints.js';
import { positionUpdate } from '../../shared/domains/ledger/ledger.js';
import type { LedgerEntryRecord } from '../../shared/domains/ledger/ledger-entry.model.js';
import { positionId, type PositionModel } from '../../shared/domains/positions/position.model.js';
import { tradeContext } from '../../shared/domains/trading/context.js';
import { executeTradeGroup } from '../../shared/domains/trading/group-commit.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent } from '../support/http.js';
import { assertAgentConserved, assertBookMatchesFills } from '../support/invariants.js';

type AuditBody = z.output<typeof adminEndpoints.audit.response>;

/**
 * The group commit (group-commit.ts) logs its entries, then writes the heads it decided them on,
 * each guarded by the sequence it read. Between the two, another writer may roll the agent's ledger
 * forward (a trade of the same agent whose append met these entries): it applies each entry to the
 * position, then to the agent, and can stop after the first write (killed, or cut off by a
 * database outage). These tests put that other writer exactly there, with a `bulkWrite` middleware
 * on a model of the positions collection.
 */
describe('group commit racing a roll-forward #integration', function () {
  this.timeout(60_000);

  it("when another writer applied a group's sell reservation to the position and stopped before the agent, then the group's settlement still reaches the position and the audit finds no difference", async () => {
    const deps = testContext().deps;
    const { models } = deps;
    const agent = await registerAgent();
    const market = await makeMarket({ p0: 0.4 });
    const bought = await trade(agent, { market_id: market._id, side: 'no', amount: 40 });
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    const pid = positionId(agent.agent_id, market._id, 'sim');
    const held = (await models.Position.findById(pid).lean())!;

    const tradeId = randomUUID();
    await models.Trade.create({
      _id: tradeId,
      agentId: agent.agent_id,
      marketId: market._id,
      venue: 'sim',
      action: 'sell',
      side: 'no',
      amountMicro: 0,
      sharesMicro: Math.floor(held.sharesNoMicro / 2),
      status: 'pending',
    });

    // The other writer: the first write of a roll-forward of this agent's ledger (the reservation
    // applied to its position, guarded as applyToPosition guards it), and nothing after it.
    let interleaved = false;
    const schema = models.Position.schema.clone();
    schema.pre('bulkWrite', async function () {
      if (interleaved) return;
      interleaved = true;
      const reserve = (await models.LedgerEntry.findById(`${tradeId}-reserve`).lean()) as LedgerEntryRecord;
      assert.ok(reserve, 'the group logged its reservation before writing its heads');
      const applied = await models.Position.updateOne(
        { _id: pid, appliedSeq: { $lt: reserve.seq } },
        positionUpdate(reserve),
      );
      assert.equal(applied.matchedCount, 1);
    });
    const Position = models.Position.db.model(
      `PositionRace${randomUUID().slice(0, 8)}`,
      schema,
      models.Position.collection.collectionName,
    ) as unknown as PositionModel;
    const ctx = { ...tradeContext(deps), models: { ...models, Position } };

    const answers = await executeTradeGroup(ctx, [tradeId]);
    assert.ok(interleaved, 'the other writer ran between the logs and the heads');
    const answer = answers.get(tradeId)!;
    assert.ok('result' in answer && answer.result.success, JSON.stringify(answer));

    const entries = (await models.LedgerEntry.find({ agentId: agent.agent_id })
      .sort({ seq: 1 })
      .lean()) as LedgerEntryRecord[];
    const logged = entries.filter((e) => e.position?.positionId === pid);
    const sum = (f: 'reservedNoMicro' | 'sharesNoMicro' | 'realizedPnlMicro') =>
      logged.reduce((s, e) => s + (e.position![f] ?? 0), 0);
    const position = (await models.Position.findById(pid).lean())!;
    const agentDoc = (await models.Agent.findById(agent.agent_id).lean())!;
    assert.equal(agentDoc.ledgerSeq, entries.at(-1)!.seq);
    assert.deepEqual(
      {
        appliedSeq: position.appliedSeq,
        reservedNoMicro: position.reservedNoMicro,
        sharesNoMicro: position.sharesNoMicro,
        realizedPnlMicro: position.realizedPnlMicro,
      },
      {
        appliedSeq: logged.at(-1)!.seq,
        reservedNoMicro: 0,
        sharesNoMicro: sum('sharesNoMicro'),
        realizedPnlMicro: sum('realizedPnlMicro'),
      },
    );
    assert.equal(sum('reservedNoMicro'), 0);
    await assertAgentConserved(agent.agent_id);
    await assertBookMatchesFills(market._id);
    const report = await api()
      .get('/api/admin/audit')
      .set({ Authorization: `Bearer ${testContext().operatorToken}` })
      .expect(200);
    const mine = (report.body as AuditBody).differences.filter(
      (d) => d.id === pid || d.id === agent.agent_id,
    );
    assert.deepEqual(mine, []);
  });
});
