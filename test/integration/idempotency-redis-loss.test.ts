import assert from 'node:assert/strict';
import mongoose from 'mongoose';
import { buildApp } from '../../api/app.js';
import { unavailable } from '../../shared/infra/errors.js';
import { claimIdempotencyKey } from '../../shared/domains/trading/idempotency.js';
import type { QueueClient } from '../../shared/infra/queue/queue-client.js';
import { deleteMany, scanKeys, type RedisClient } from '../../shared/infra/redis.js';
import { testContext } from '../support/context.js';
import { makeMarket, trade } from '../support/factories.js';
import { registerAgent } from '../support/http.js';

/**
 * Found by the chaos run (npm run chaos): a trade finished while Redis was down (SIGKILLed and being
 * restarted), so its answer never replaced the key's in-flight claim, which expires 120 s after it
 * was made. The client's resend of the identical request after that placed a second trade.
 */
/**
 * This Redis fails the first `failures` releases of a claim, like a Redis that just died. A release
 * is the compare-and-delete script on an idempotency key: one key, one argument (the claim).
 */
function failingReleases(redis: RedisClient, failures: number) {
  let failed = 0;
  const isRelease = (numKeys: unknown, rest: unknown[]) =>
    numKeys === 1 && String(rest[0]).includes(':idem:') && rest.length === 2;
  return new Proxy(redis, {
    get: (target, name, receiver) =>
      name === 'eval' || name === 'evalsha'
        ? async (script: string, numKeys: number, ...rest: (string | number)[]) => {
            if (isRelease(numKeys, rest) && failed++ < failures) throw new Error('Connection is closed.');
            const run = target[name] as (...a: unknown[]) => Promise<unknown>;
            return run.call(target, script, numKeys, ...rest);
          }
        : Reflect.get(target, name, receiver),
  }) as RedisClient;
}

describe('idempotency_key when Redis lost the answer #integration', () => {
  it('when the first answer never reached Redis and the claim has expired, then a resend with the same key answers the first trade and places nothing', async () => {
    const { deps, env } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket();
    const body = { market_id: market._id, side: 'yes', amount: 4, idempotency_key: 'answer-lost-1' };
    const first = await trade(agent, body);
    assert.equal(first.body.fill_status, 'filled', JSON.stringify(first.body));

    // What Redis holds 120 s after a completion it missed: nothing under the key.
    const keys = await scanKeys(deps.redis, `${env.QUEUE_PREFIX}:idem:${agent.agent_id}:*`);
    assert.equal(keys.length, 1);
    await deleteMany(deps.redis, keys);

    const again = await trade(agent, body);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.trade_id, first.body.trade_id, 'the resend is the first trade');
    assert.equal(again.body.fill_status, 'filled');
    const placed = await deps.models.Trade.countDocuments({
      agentId: agent.agent_id,
      idempotencyKey: body.idempotency_key,
    });
    assert.equal(placed, 1, 'one trade under the key');

    // The answer is cached again: a third send is a replay from Redis.
    const third = await trade(agent, body);
    assert.equal(third.body.trade_id, first.body.trade_id);
  });

  it('when the key was first used with another trade, then the resend is refused as a reused key even though Redis forgot it', async () => {
    const { deps, env } = testContext();
    const agent = await registerAgent();
    const market = await makeMarket();
    const body = { market_id: market._id, side: 'no', amount: 2, idempotency_key: 'answer-lost-2' };
    assert.equal((await trade(agent, body)).body.fill_status, 'filled');
    await deleteMany(deps.redis, await scanKeys(deps.redis, `${env.QUEUE_PREFIX}:idem:${agent.agent_id}:*`));

    const other = await trade(agent, { ...body, amount: 3 });
    assert.equal(other.status, 422, JSON.stringify(other.body));
    assert.equal(other.body.detail?.[0]?.type, 'idempotency_key_reused');
  });

  it('when a trade was stopped because the queue was down and Redis could not free its key, then a resend places the trade instead of answering "in flight"', async () => {
    const ctx = testContext();
    const agent = await registerAgent();
    const market = await makeMarket();
    const body = { market_id: market._id, side: 'yes', amount: 3, idempotency_key: 'queue-down-1' };
    // The queue refuses the job, and every release of the key fails (Redis went down with it).
    const queues = Object.create(ctx.deps.queues) as QueueClient;
    queues.enqueueAndWait = async () => {
      throw unavailable('The job queue');
    };
    const redis = failingReleases(ctx.deps.redis, Infinity);
    const down = buildApp({ ...ctx.deps, queues, redis }, { operatorToken: ctx.operatorToken });
    const refused = await trade(agent, body, down);
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    const stopped = await ctx.deps.models.Trade.findOne({ agentId: agent.agent_id }).lean();
    assert.equal(stopped?.status, 'failed');
    assert.equal(stopped?.result ?? null, null, 'stopped before it ran');

    // The resend, once the queue is back: the key still says "in flight" for the stopped trade.
    const again = await trade(agent, body);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.fill_status, 'filled');
    assert.notEqual(again.body.trade_id, stopped?._id);
    const replay = await trade(agent, body);
    assert.equal(replay.body.trade_id, again.body.trade_id, 'the key now answers the trade that ran');
    assert.equal(
      await ctx.deps.models.Trade.countDocuments({ agentId: agent.agent_id, status: 'filled' }),
      1,
      'one trade filled under the key',
    );
  });

  it('when the database applied a trade but its reply was lost, then a resend with the same key places the trade instead of answering "in flight" for good', async () => {
    const ctx = testContext();
    const { Trade } = ctx.deps.models;
    const agent = await registerAgent();
    const market = await makeMarket();
    const body = { market_id: market._id, side: 'yes', amount: 3, idempotency_key: 'reply-lost-1' };
    // The insert is applied, then the connection drops before its reply (a database SIGKILLed then).
    // (The API records trades with insertMany, several per command: trade-inserts.ts.)
    const lostReply = new Proxy(Trade, {
      get: (target, name, receiver) =>
        name === 'insertMany'
          ? async (docs: object[], options: object) => {
              await target.insertMany(docs, options);
              throw new mongoose.mongo.MongoNetworkError('connection 7 to 127.0.0.1:27017 closed');
            }
          : Reflect.get(target, name, receiver),
    });
    const down = buildApp(
      { ...ctx.deps, models: { ...ctx.deps.models, Trade: lostReply } },
      { operatorToken: ctx.operatorToken },
    );
    const refused = await trade(agent, body, down);
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    const orphan = await Trade.findOne({ agentId: agent.agent_id }).lean();
    assert.equal(orphan?.status, 'pending', 'recorded, and never queued');

    const again = await trade(agent, body);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.fill_status, 'filled');
    assert.notEqual(again.body.trade_id, orphan?._id);
    const stopped = await Trade.findById(orphan?._id).lean();
    assert.equal(stopped?.status, 'failed', 'the orphan is stopped, never run late');
    assert.equal(stopped?.result ?? null, null);
    assert.equal(
      (await trade(agent, body)).body.trade_id,
      again.body.trade_id,
      'the key answers the trade that ran',
    );
    assert.equal(await Trade.countDocuments({ agentId: agent.agent_id, status: 'filled' }), 1);
  });

  it('when a trade answered "submitted" lost its job, then a resend with the same key stops it and places the trade instead of answering "in flight" for a day', async () => {
    const ctx = testContext();
    const { Trade } = ctx.deps.models;
    const agent = await registerAgent();
    const market = await makeMarket();
    const body = { market_id: market._id, side: 'no', amount: 2, idempotency_key: 'job-lost-1' };
    // The job never reaches a worker (Redis lost it) and the wait ends first: "submitted".
    const queues = Object.create(ctx.deps.queues) as QueueClient;
    queues.enqueueAndWait = async () => ({ state: 'pending', jobId: 'lost' }) as never;
    const lost = buildApp({ ...ctx.deps, queues }, { operatorToken: ctx.operatorToken });
    const submitted = await trade(agent, body, lost);
    assert.equal(submitted.body.fill_status, 'submitted', JSON.stringify(submitted.body));
    const orphan = submitted.body.trade_id as string;

    // Just after, the request may still be queueing it: "in flight".
    assert.equal((await trade(agent, body)).body.error_code, 'idempotency_in_flight');
    // Long after, no request is: the resend stops it and places the trade.
    await Trade.collection.updateOne(
      { _id: orphan as never },
      { $set: { createdAt: new Date(Date.now() - 5 * 60_000) } },
    );
    const again = await trade(agent, body);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(again.body.fill_status, 'filled');
    assert.notEqual(again.body.trade_id, orphan);
    const stopped = await Trade.findById(orphan).lean();
    assert.equal(stopped?.status, 'failed', 'never run late');
    assert.equal((await trade(agent, body)).body.trade_id, again.body.trade_id);
  });

  it('when freeing a key that placed nothing fails because Redis is down, then it is freed once Redis answers again, and never a later request’s claim', async () => {
    const { deps, env } = testContext();
    const claim = (redis: RedisClient, key: string, tradeId: string) =>
      claimIdempotencyKey(redis, env.QUEUE_PREFIX, 'agent-release', key, tradeId, 'fp');
    const down = failingReleases(deps.redis, 2);
    const first = await claim(down, 'release-1', 'trade-a');
    assert.equal(first.state, 'first');
    await (first.state === 'first' && first.abandon()); // fails now; retried after 250 ms, then 500 ms
    assert.equal((await claim(deps.redis, 'release-1', 'trade-b')).state, 'in-flight');
    const deadline = Date.now() + 5000;
    let freed = false;
    while (!freed && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      freed = (await claim(deps.redis, 'release-1', 'trade-c')).state === 'first';
    }
    assert.ok(freed, 'the key is free again within the retries');

    // Trade-c holds the key now: a late release of trade-a's claim must not free it.
    const stale = await claim(deps.redis, 'release-2', 'trade-d');
    const stored = await scanKeys(deps.redis, `${env.QUEUE_PREFIX}:idem:agent-release:*`);
    for (const key of stored)
      await deps.redis.set(key, JSON.stringify({ inFlight: 'trade-e', fp: 'fp' }), 'EX', 60);
    await (stale.state === 'first' && stale.abandon());
    assert.equal((await claim(deps.redis, 'release-2', 'trade-f')).state, 'in-flight');
  });

  it('when a resend took the key over, then the slow first request’s late writes leave the resend’s claim alone', async () => {
    const { deps, env } = testContext();
    const claim = (key: string, tradeId: string) =>
      claimIdempotencyKey<{ trade_id: string }>(
        deps.redis,
        env.QUEUE_PREFIX,
        'agent-late',
        key,
        tradeId,
        'fp',
      );
    const slow = await claim('late-1', 'trade-slow');
    assert.equal(slow.state, 'first');
    const [stored] = await scanKeys(deps.redis, `${env.QUEUE_PREFIX}:idem:agent-late:*`);
    // What a takeover leaves: the resend's own claim.
    const resendClaim = JSON.stringify({ inFlight: 'trade-resend', fp: 'fp' });
    await deps.redis.set(stored!, resendClaim, 'EX', 60);
    if (slow.state !== 'first') return;
    await slow.keepPointing();
    await slow.complete({ trade_id: 'trade-slow' });
    assert.equal(await deps.redis.get(stored!), resendClaim);
    // Its own claim, or an expired one, it still writes.
    await deps.redis.del(stored!);
    await slow.keepPointing();
    assert.equal(JSON.parse((await deps.redis.get(stored!))!).inFlight, 'trade-slow');
    await slow.complete({ trade_id: 'trade-slow' });
    assert.equal(JSON.parse((await deps.redis.get(stored!))!).answer.trade_id, 'trade-slow');
  });
});
