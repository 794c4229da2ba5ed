import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { asUser, claim, tokenFor } from '../support/users.js';

const ROUNDS = 30;
const asAgent = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });
const patch = (auth: Record<string, string>, body: object) =>
  api().patch('/api/sdk/user/settings').set(auth).send(body);

async function claimedAgent() {
  const user = tokenFor(`u-${randomUUID()}`);
  const agent = await registerAgent({ name: 'racer' });
  assert.equal((await claim(user, agent.claim_code)).status, 200);
  return { user: asUser(user), agent: asAgent(agent) };
}

/**
 * Issue 16, finding 3: an agent key may only tighten its human's limits. The agent's change must be
 * decided against the settings it replaces, so a human's concurrent tightening is never undone.
 */
describe('settings race: an agent key never loosens what its human tightened #integration', () => {
  it(`when a human tightens max_trades_per_day while the agent sets a looser value, ${ROUNDS} rounds, then the human's value always stands`, async () => {
    const { user, agent } = await claimedAgent();
    const loosened: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await patch(user, { max_trades_per_day: 100 }).expect(200);
      const [human, bot] = await Promise.all([
        patch(user, { max_trades_per_day: 10 }),
        patch(agent, { max_trades_per_day: 90 }),
      ]);
      assert.equal(human.status, 200, JSON.stringify(human.body));
      assert.ok([200, 403].includes(bot.status), JSON.stringify(bot.body));
      const after = await api().get('/api/sdk/user/settings').set(user).expect(200);
      if (after.body.max_trades_per_day !== 10) loosened.push(round);
    }
    assert.deepEqual(loosened, [], `the agent's 90 replaced the human's 10 in rounds ${loosened.join(', ')}`);
  });

  it(`when a human turns real trading off with a $1 cap while the agent sends on + $100, ${ROUNDS} rounds, then real trading stays off at $1`, async () => {
    const { user, agent } = await claimedAgent();
    const loosened: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      await patch(user, { sdk_real_trading_enabled: true, sdk_max_trade_amount: 100 }).expect(200);
      const [human, bot] = await Promise.all([
        patch(user, { sdk_real_trading_enabled: false, sdk_max_trade_amount: 1 }),
        patch(agent, { sdk_real_trading_enabled: true, sdk_max_trade_amount: 100 }),
      ]);
      assert.equal(human.status, 200, JSON.stringify(human.body));
      assert.ok([200, 403].includes(bot.status), JSON.stringify(bot.body));
      const after = await api().get('/api/sdk/user/settings').set(user).expect(200);
      if (after.body.sdk_real_trading_enabled !== false || after.body.sdk_max_trade_amount !== 1)
        loosened.push(round);
    }
    assert.deepEqual(loosened, [], `the agent turned real trading back on in rounds ${loosened.join(', ')}`);
  });
});
