import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import {
  claimIdempotencyKey,
  fingerprintOf,
  type TradeIntent,
} from '../../shared/domains/trading/idempotency.js';
import { matchError } from '../../shared/domains/support/troubleshoot.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { registerAgent } from '../support/http.js';

/**
 * Issue 16, finding 8: an idempotency_key is bound to the request it first came with (as Stripe
 * binds it): the same key with another trade is refused with 422, never answered with the first.
 */
describe('idempotency_key bound to its request #integration', () => {
  it('when a key is reused with a different market, side, amount or action, then 422 idempotency_key_reused with a fix, and nothing more is placed', async () => {
    const agent = await registerAgent();
    const [market, other] = await Promise.all([makeMarket(), makeMarket()]);
    const first = { market_id: market._id, side: 'yes', amount: 5, idempotency_key: 'bound-1' };
    const placed = await trade(agent, first);
    assert.equal(placed.body.success, true, JSON.stringify(placed.body));

    const variants = {
      market: { ...first, market_id: other._id },
      side: { ...first, side: 'no' },
      amount: { ...first, amount: 6 },
      action: { ...first, action: 'sell', amount: 0, shares: 1 },
      'limit price': { ...first, price: 0.9 },
    };
    for (const [what, body] of Object.entries(variants)) {
      const res = await trade(agent, body);
      assert.equal(res.status, 422, `${what}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.detail?.[0]?.type, 'idempotency_key_reused', what);
      assert.deepEqual(res.body.detail[0].loc, ['body', 'idempotency_key'], what);
      assert.match(res.body.error, /idempotency_key_reused/, what);
      assert.match(res.body.fix, /new idempotency_key/, what);
      assert.equal(
        matchError(res.body.error).error_code,
        'idempotency_key_reused',
        'troubleshoot explains it',
      );
    }
    assert.equal(await testContext().deps.models.Trade.countDocuments({ agentId: agent.agent_id }), 1);
  });

  it('when the identical request is sent again, then the first answer is replayed', async () => {
    const agent = await registerAgent();
    const market = await makeMarket();
    const body = { market_id: market._id, side: 'no', amount: 3, idempotency_key: 'bound-2' };
    const first = await trade(agent, body);
    const again = await trade(agent, { ...body, reasoning: 'a retry may word its reasoning anew' });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
  });

  it('when a duplicate with another trade arrives while the first is in flight, then 422 too; a key stored before fingerprints still replays', async () => {
    const { deps, env } = testContext();
    const intent: TradeIntent = {
      venue: 'sim',
      marketId: 'm-1',
      side: 'yes',
      action: 'buy',
      amountMicro: 5_000_000,
      sharesMicro: 0,
      limitPrice: null,
      orderType: 'FAK',
    };
    const claim = (key: string, fp: string) =>
      claimIdempotencyKey(deps.redis, env.QUEUE_PREFIX, 'agent-fp', key, 'trade-2', fp);
    const first = await claimIdempotencyKey(
      deps.redis,
      env.QUEUE_PREFIX,
      'agent-fp',
      'in-flight-key',
      'trade-1',
      fingerprintOf(intent),
    );
    assert.equal(first.state, 'first');
    await assert.rejects(
      claim('in-flight-key', fingerprintOf({ ...intent, amountMicro: 6_000_000 })),
      (err) => {
        assert.equal((err as { items: { type: string }[] }).items[0]!.type, 'idempotency_key_reused');
        return true;
      },
    );
    const same = await claim('in-flight-key', fingerprintOf(intent));
    assert.equal(same.state, 'in-flight');
    assert.equal(same.state === 'in-flight' && same.tradeId, 'trade-1');

    // Written by the previous release: no fingerprint to compare, so it replays as before.
    const legacyKey = `${env.QUEUE_PREFIX}:idem:agent-fp:${createHash('sha256').update('legacy').digest('hex')}`;
    await deps.redis.set(legacyKey, JSON.stringify({ answer: { trade_id: 'old' } }), 'EX', 60);
    assert.deepEqual(await claim('legacy', fingerprintOf(intent)), {
      state: 'replay',
      answer: { trade_id: 'old' },
    });
  });
});
