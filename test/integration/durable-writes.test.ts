import assert from 'node:assert/strict';
import { testContext } from '../support/context.js';
import { registerAgent } from '../support/http.js';
import { agentWithMarket, trade } from '../support/factories.js';

/**
 * A real mongod journals about every 100 ms by itself: a write acknowledged before its journal
 * commit is lost by a kill -9 of the database in that window. Every write of the service asks for
 * the journal (and a replica set's majority) before it is acknowledged.
 */
describe('durable writes #integration', () => {
  it('when the service writes, then its connection asks for journaled, majority-acknowledged writes, and the dev database takes them', async () => {
    const { deps } = testContext();
    const { writeConcern } = deps.mongo.getClient().options;
    assert.equal(writeConcern?.w, 'majority');
    assert.equal(writeConcern?.journal, true);
    const { agent, market } = await agentWithMarket();
    const bought = await trade(agent, { market_id: market._id, side: 'yes', amount: 5 });
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    assert.ok(await registerAgent());
  });
});
