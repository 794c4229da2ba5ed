import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TRADING_PAUSED } from '../../shared/domains/limits/trade-guard.js';
import type { MarketRecord } from '../../shared/domains/markets/market.model.js';
import { ASSISTED_PER_DAY, matchError } from '../../shared/domains/support/troubleshoot.js';
import { REFUSALS } from '../../shared/domains/venues/sim/sim-decisions.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, randomIp, registerAgent, type RegisteredAgent } from '../support/http.js';

const ask = (body: object, agent?: RegisteredAgent) => {
  const req = api().post('/api/sdk/troubleshoot');
  if (agent) req.set('Authorization', `Bearer ${agent.api_key}`);
  return req.send(body);
};

describe('troubleshoot #integration', () => {
  it('when only error_text is sent, without a key, then the matching explanation and fix come back', async () => {
    const res = await ask({
      error_text: 'HTTPError: 429 Client Error: {"detail": "Daily limit reached: 50 trades"}',
    });
    assert.equal(res.status, 200);
    assert.equal(res.body.mode, 'pattern');
    assert.equal(res.body.matched, true);
    assert.equal(res.body.error_code, 'daily_limit_reached');
    assert.match(res.body.fix, /midnight UTC/);
    assert.equal(typeof res.body.source, 'string');

    const unknown = await ask({ error_text: 'the printer is on fire' });
    assert.equal(unknown.body.matched, false);
    assert.equal(unknown.body.source, null);
    assert.match(unknown.body.fix, /error_code/);
    assert.equal((await ask({})).status, 422);
    const long = await ask({ error_text: `Agent is suspended. ${'x'.repeat(20_000)}` });
    assert.equal(long.status, 200, 'a whole error page is taken');
    assert.equal(long.body.error_code, 'agent_suspended');
    const badKey = await api()
      .post('/api/sdk/troubleshoot')
      .set('Authorization', 'Bearer sk_live_nope')
      .send({ error_text: 'x' });
    assert.equal(badKey.status, 401, 'a key that is sent must be valid');
  });

  it('every refusal and error text the service builds is explained by its own pattern', async () => {
    const market = { status: 'resolved', outcome: true } as MarketRecord;
    const built: [string, string][] = [
      [REFUSALS.suspended().error, 'agent_suspended'],
      [REFUSALS.broke().error, 'agent_broke'],
      [REFUSALS.insufficientBalance(2_000_000, 1_000_000).error, 'insufficient_balance'],
      [REFUSALS.insufficientShares('yes', 2_000_000, 1_000_000, false).error, 'insufficient_shares'],
      [REFUSALS.marketNotActive(market).error, 'market_not_active'],
      [REFUSALS.marketNotActive({ ...market, status: 'closed' } as MarketRecord).error, 'market_not_active'],
      [REFUSALS.limitNotMet('yes', 'buy', 0.6, 0.5).error, 'limit_not_met'],
      [REFUSALS.tooSmall().error, 'trade_too_small'],
      [TRADING_PAUSED.error, 'trading_paused'],
    ];
    // And texts as the API really answers them.
    const agent = await registerAgent();
    const m = await makeMarket();
    built.push([(await api().get('/api/sdk/agents/me')).body.error, 'unauthorized']);
    built.push([
      (await trade(agent, { market_id: randomUUID(), side: 'yes', amount: 1 })).body.error,
      'market_not_found',
    ]);
    built.push([
      (await trade(agent, { market_id: m._id, side: 'yes', amount: 501 })).body.error,
      'trade_amount_cap',
    ]);
    built.push([
      (await api().post('/api/sdk/agents/register').set('X-Forwarded-For', randomIp()).send({})).body.error,
      'validation',
    ]);
    await api()
      .patch('/api/sdk/user/settings')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ max_trades_per_day: 1 })
      .expect(200);
    await trade(agent, { market_id: m._id, side: 'yes', amount: 1 });
    built.push([
      (await trade(agent, { market_id: m._id, side: 'no', amount: 1 })).body.error,
      'daily_limit_reached',
    ]);

    // Numbers that merely contain a status code are not that status.
    built.push([REFUSALS.insufficientBalance(500_000_000, 401_230_000).error, 'insufficient_balance']);
    built.push([REFUSALS.limitNotMet('yes', 'buy', 0.5401, 0.5).error, 'limit_not_met']);
    built.push([`Market not found: 9b1c2401-0000-4000-8000-000000000429`, 'market_not_found']);
    built.push(['HTTPError: 401 Client Error: Unauthorized', 'unauthorized']);

    for (const [text, id] of built) assert.equal(matchError(text).error_code, id, text);
  });

  it('when a message is sent with the agent key, then the account is checked too, five times a day', async () => {
    assert.equal((await ask({ message: 'why can I not trade?' })).status, 401, 'assisted help needs the key');
    const agent = await registerAgent();
    const market = await makeMarket();
    await api()
      .patch('/api/sdk/user/settings')
      .set('Authorization', `Bearer ${agent.api_key}`)
      .send({ trading_paused: true })
      .expect(200);
    await trade(agent, { market_id: market._id, side: 'yes', amount: 1, price: 0.01 });
    const res = await ask(
      { message: 'my trades keep failing', conversation: ['hello', { role: 'user', content: 'help' }] },
      agent,
    );
    assert.equal(res.status, 200);
    assert.equal(res.body.mode, 'assisted');
    assert.ok(res.body.diagnostics.some((d: string) => /kill switch/.test(d)));
    assert.ok(res.body.diagnostics.some((d: string) => /unclaimed/.test(d)));
    assert.match(res.body.answer, /On your account right now/);
    assert.equal(res.body.remaining_today, ASSISTED_PER_DAY - 1);
    for (let i = 1; i < ASSISTED_PER_DAY; i++) await ask({ message: 'again' }, agent).expect(200);
    const over = await ask({ message: 'once more' }, agent);
    assert.equal(over.status, 429);
    assert.equal(over.body.error_code, 'troubleshoot_limit_reached');
    assert.equal(
      (await ask({ error_text: 'Agent is suspended.' }, agent)).status,
      200,
      'pattern mode stays free',
    );
  });
});
