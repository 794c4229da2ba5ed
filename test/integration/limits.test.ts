import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import { admitBuy, releaseAdmission } from '../../shared/domains/limits/counters.js';
import type { Env } from '../../shared/infra/config/env.js';
import { testContext } from '../support/context.js';
import { makeMarket, spend, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { asUser, claim, tokenFor } from '../support/users.js';

const asAgent = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });
const patchSettings = (auth: Record<string, string>, body: object, path = '/api/sdk/user/settings') =>
  api().patch(path).set(auth).send(body);
const cooldowns = (a: RegisteredAgent, auth: Record<string, string> = asAgent(a)) =>
  api().get(`/api/sdk/agents/${a.agent_id}/cooldowns`).set(auth);
const buy = (a: RegisteredAgent, marketId: string, extra: Record<string, unknown> = {}) =>
  trade(a, { market_id: marketId, side: 'yes', amount: 5, ...extra });
const nextMidnight = () => {
  const d = new Date();
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)).toISOString();
};

/** A user (free unless told) with a claimed agent. */
async function claimedAgent(tier?: 'pro' | 'elite') {
  const sub = `u-${randomUUID()}`;
  const user = tokenFor(sub);
  const agent = await registerAgent({ name: 'owned' });
  assert.equal((await claim(user, agent.claim_code)).status, 200);
  if (tier)
    await api()
      .put(`/api/admin/users/${sub}/tier`)
      .set('Authorization', `Bearer ${testContext().operatorToken}`)
      .send({ tier })
      .expect(200);
  return { user, agent };
}

describe('settings, limits and cooldowns #integration', () => {
  describe('settings', () => {
    it('when an unclaimed agent reads its settings, then it has its own defaults and no real trading', async () => {
      const agent = await registerAgent();
      for (const path of ['/api/sdk/settings', '/api/sdk/user/settings']) {
        const res = await api().get(path).set(asAgent(agent)).expect(200);
        assert.equal(res.body.settings_owner, 'agent');
        assert.equal(res.body.tier, 'free');
        assert.equal(res.body.sdk_real_trading_enabled, false);
        assert.equal(res.body.max_trades_per_day, 50);
        assert.equal(res.body.max_trades_per_day_limit, 1000);
        assert.equal(res.body.sdk_max_trade_amount, 100);
        assert.equal(res.body.sdk_daily_limit, 500);
        assert.equal(res.body.sdk_daily_spent, 0);
        assert.equal(res.body.trading_paused, false);
        assert.equal(res.body.default_stop_loss_pct, 0.5);
        assert.equal(res.body.default_take_profit_pct, null);
        assert.equal(res.body.auto_risk_monitor_enabled, true);
        assert.equal(res.body.solana_wallet_address, null);
        assert.equal(res.body.daily_limit_resets_at, nextMidnight());
      }
      const on = await patchSettings(asAgent(agent), { sdk_real_trading_enabled: true }, '/api/sdk/settings');
      assert.equal(on.status, 403);
      assert.equal(on.body.error_code, 'agent_not_claimed');
      assert.match(on.body.claim_url, new RegExp(agent.claim_code));
    });

    it('when settings are changed by PATCH or POST, then they read back, bot_solana_wallet as solana_wallet_address', async () => {
      const agent = await registerAgent();
      const wallet = Keypair.generate().publicKey.toBase58();
      const res = await patchSettings(asAgent(agent), {
        bot_solana_wallet: wallet,
        max_trades_per_day: 200,
        default_stop_loss_pct: 0.25,
        default_take_profit_pct: 0.8,
        auto_risk_monitor_enabled: false,
        max_position_usd: 250,
      }).expect(200);
      assert.equal(res.body.solana_wallet_address, wallet);
      assert.equal(res.body.max_trades_per_day, 200);
      const posted = await api()
        .post('/api/sdk/settings')
        .set(asAgent(agent))
        .send({ user_email: 'someone@example.com', sdk_max_trade_amount: 42.5, sdk_daily_limit: 300 })
        .expect(200);
      assert.match(posted.body.warning, /user_email ignored/);
      const back = await api().get('/api/sdk/user/settings').set(asAgent(agent)).expect(200);
      assert.equal(back.body.solana_wallet_address, wallet);
      assert.equal(back.body.default_stop_loss_pct, 0.25);
      assert.equal(back.body.default_take_profit_pct, 0.8);
      assert.equal(back.body.auto_risk_monitor_enabled, false);
      assert.equal(back.body.max_position_usd, 250);
      assert.equal(back.body.sdk_max_trade_amount, 42.5);
      assert.equal(back.body.sdk_daily_limit, 300);
      const cleared = await patchSettings(asAgent(agent), { default_take_profit_pct: null }).expect(200);
      assert.equal(cleared.body.default_take_profit_pct, null);
    });

    it('when a body sets read-only, unknown or out-of-range fields, then 422 with a fix and nothing changes', async () => {
      const agent = await registerAgent();
      for (const body of [
        { balance: 1_000_000 },
        { tier: 'elite' },
        { status: 'claimed' },
        { wallet: '0xabc' },
      ]) {
        const res = await patchSettings(asAgent(agent), { ...body, trading_paused: true });
        assert.equal(res.status, 422, JSON.stringify(body));
        const field = Object.keys(body)[0]!;
        assert.deepEqual(res.body.detail[0].loc, ['body', field]);
        assert.match(res.body.fix, new RegExp(`Remove "${field}".*max_trades_per_day`));
      }
      const tooMany = await patchSettings(asAgent(agent), { max_trades_per_day: 1001 });
      assert.equal(tooMany.status, 422);
      assert.match(tooMany.body.detail[0].msg, /at most 1000 on the free tier/);
      assert.equal((await patchSettings(asAgent(agent), { bot_solana_wallet: 'not-a-wallet' })).status, 422);
      assert.equal((await patchSettings(asAgent(agent), {})).status, 422);
      const unchanged = await api().get('/api/sdk/user/settings').set(asAgent(agent)).expect(200);
      assert.equal(unchanged.body.trading_paused, false);
      assert.equal(unchanged.body.max_trades_per_day, 50);
    });

    it('when a claimed agent changes settings with its key, then they are its owner’s, shared by the owner’s agents; only the human loosens them', async () => {
      const { user, agent } = await claimedAgent('pro');
      const second = await registerAgent({ name: 'second' });
      await claim(user, second.claim_code).expect(200);
      const res = await patchSettings(asAgent(agent), {
        max_trades_per_day: 20,
        sdk_daily_limit: 100,
      }).expect(200);
      assert.equal(res.body.settings_owner, 'user');
      assert.equal(res.body.tier, 'pro');
      assert.equal(res.body.sdk_real_trading_enabled, true);
      const seenBySecond = await api().get('/api/sdk/settings').set(asAgent(second)).expect(200);
      assert.equal(seenBySecond.body.max_trades_per_day, 20);
      assert.equal(seenBySecond.body.sdk_daily_limit, 100);

      for (const body of [
        { max_trades_per_day: 21 },
        { sdk_daily_limit: 100.01 },
        { sdk_max_trade_amount: 1000 },
        { sdk_real_trading_enabled: false },
      ]) {
        const sent = await patchSettings(asAgent(second), body, '/api/sdk/settings');
        assert.equal(sent.status, Object.values(body)[0] === false ? 200 : 403, JSON.stringify(body));
      }
      const on = await patchSettings(asAgent(agent), { sdk_real_trading_enabled: true }, '/api/sdk/settings');
      assert.equal(on.status, 403);
      assert.equal(on.body.error_code, 'owner_setting');
      assert.match(on.body.error, /Only your human can loosen sdk_real_trading_enabled/);

      const raised = await patchSettings(asUser(user), {
        max_trades_per_day: 5000,
        sdk_real_trading_enabled: true,
      });
      assert.equal(raised.status, 200);
      assert.equal(raised.body.max_trades_per_day, 5000);
      assert.equal((await patchSettings(asUser(user), { max_trades_per_day: 5001 })).status, 422);
      const me = await api().get('/api/sdk/agents/me').set(asAgent(second)).expect(200);
      assert.equal(me.body.rate_limits.tier, 'pro', 'the owner’s tier');
      assert.equal(me.body.rate_limits.imports_per_day, 100);
    });

    it('when a claimed agent’s key turns off or widens its owner’s automatic stop-loss, then 403 owner_setting and nothing changes; it may tighten, and the human may loosen', async () => {
      const { user, agent } = await claimedAgent();
      for (const body of [
        { auto_risk_monitor_enabled: false },
        { default_stop_loss_pct: 0.99 },
        { default_stop_loss_pct: null },
      ]) {
        const res = await patchSettings(asAgent(agent), body, '/api/sdk/settings');
        assert.equal(res.status, 403, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
        assert.equal(res.body.error_code, 'owner_setting');
        assert.match(res.body.error, new RegExp(`Only your human can loosen ${Object.keys(body)[0]}`));
        assert.match(res.body.fix, /user token/);
      }
      const unchanged = await api().get('/api/sdk/settings').set(asAgent(agent)).expect(200);
      assert.equal(unchanged.body.auto_risk_monitor_enabled, true);
      assert.equal(unchanged.body.default_stop_loss_pct, 0.5);

      const tightened = await patchSettings(asAgent(agent), { default_stop_loss_pct: 0.2 }).expect(200);
      assert.equal(tightened.body.default_stop_loss_pct, 0.2);
      const loosened = await patchSettings(asUser(user), {
        auto_risk_monitor_enabled: false,
        default_stop_loss_pct: 0.9,
      }).expect(200);
      assert.equal(loosened.body.auto_risk_monitor_enabled, false);
      const enabled = await patchSettings(asAgent(agent), { auto_risk_monitor_enabled: true }).expect(200);
      assert.equal(enabled.body.auto_risk_monitor_enabled, true);
    });

    it('when the owner is moved to a lower tier, then the daily limit follows the new tier’s ceiling', async () => {
      const { user, agent } = await claimedAgent('pro');
      await patchSettings(asUser(user), { max_trades_per_day: 5000 }).expect(200);
      const sub = JSON.parse(Buffer.from(user.split('.')[1]!, 'base64url').toString()).sub as string;
      await api()
        .put(`/api/admin/users/${sub}/tier`)
        .set('Authorization', `Bearer ${testContext().operatorToken}`)
        .send({ tier: 'free' })
        .expect(200);
      const seen = await api().get('/api/sdk/user/settings').set(asAgent(agent)).expect(200);
      assert.equal(seen.body.max_trades_per_day, 1000);
      assert.equal((await cooldowns(agent).expect(200)).body.daily.max_trades_per_day, 1000);
    });
  });

  describe('limits on trades', () => {
    it('when the daily trade count is reached, then buys are refused until midnight UTC; sells and dry runs pass', async () => {
      const agent = await registerAgent();
      const [m1, m2, m3] = await Promise.all([makeMarket(), makeMarket(), makeMarket()]);
      await patchSettings(asAgent(agent), { max_trades_per_day: 2 }).expect(200);
      const first = await buy(agent, m1._id);
      assert.equal(first.body.success, true);
      assert.equal((await buy(agent, m2._id)).body.success, true);

      const refused = await buy(agent, m3._id);
      assert.equal(refused.status, 429);
      assert.equal(refused.body.detail, 'Daily limit reached: 2 trades');
      assert.equal(refused.body.error, 'Daily limit reached: 2 trades');
      assert.equal(refused.body.error_code, 'daily_limit_reached');
      assert.equal(refused.body.expires_at, nextMidnight());
      assert.match(refused.body.fix, /midnight UTC.*max_trades_per_day/);
      assert.ok(Number(refused.headers['retry-after']) > 0);

      const dry = await buy(agent, m3._id, { dry_run: true });
      assert.equal(dry.body.success, true, 'a dry run skips the account limits');
      const sell = await trade(agent, {
        market_id: m1._id,
        side: 'yes',
        action: 'sell',
        shares: first.body.shares_bought,
      });
      assert.equal(sell.body.success, true, 'sells are not counted');

      const seen = await cooldowns(agent).expect(200);
      assert.equal(seen.body.daily.trades_today, 2);
      assert.equal(seen.body.daily.limit_reached, true);
      assert.equal(seen.body.daily.resets_at, nextMidnight());
      const entry = seen.body.cooldowns.find((c: { kind: string }) => c.kind === 'daily_limit_reached');
      assert.equal(entry.expires_at, nextMidnight());
      assert.equal(entry.type, 'rate_limit');

      await patchSettings(asAgent(agent), { max_trades_per_day: 3 }).expect(200);
      assert.equal((await buy(agent, m3._id)).body.success, true);
    });

    it('when the UTC day changes, then the daily count starts again', async () => {
      const { deps } = testContext();
      const agent = await registerAgent();
      const [m1, m2] = await Promise.all([makeMarket(), makeMarket()]);
      await patchSettings(asAgent(agent), { max_trades_per_day: 1 }).expect(200);
      assert.equal((await buy(agent, m1._id)).body.success, true);
      assert.equal((await buy(agent, m2._id)).status, 429);
      const clock = deps.clock;
      deps.clock = () => new Date(Date.now() + 24 * 3600_000);
      try {
        assert.equal((await buy(agent, m2._id)).body.success, true);
      } finally {
        deps.clock = clock;
      }
    });

    it('when buys race at the daily limit, then exactly the limit passes, and a buy that is refused gives its count back', async () => {
      const agent = await registerAgent();
      const markets = await Promise.all(Array.from({ length: 10 }, () => makeMarket()));
      await patchSettings(asAgent(agent), { max_trades_per_day: 5 }).expect(200);
      const answers = await Promise.all(markets.map((m) => buy(agent, m._id)));
      assert.equal(answers.filter((r) => r.body.success === true).length, 5);
      assert.equal(answers.filter((r) => r.status === 429).length, 5);

      const other = await registerAgent();
      await patchSettings(asAgent(other), { max_trades_per_day: 1 }).expect(200);
      const unfillable = await buy(other, markets[0]!._id, { price: 0.01 });
      assert.equal(unfillable.body.success, false);
      assert.equal((await buy(other, markets[1]!._id)).body.success, true, 'the refused buy was not counted');
      assert.equal((await cooldowns(other).expect(200)).body.daily.trades_today, 1);
    });

    it('when the kill switch is on, then every trade is refused with its message until it is turned off', async () => {
      const { user, agent } = await claimedAgent();
      const market = await makeMarket();
      const bought = await buy(agent, market._id);
      assert.equal(bought.body.success, true);
      const paused = await patchSettings(asUser(user), { trading_paused: true }).expect(200);
      assert.equal(paused.body.trading_paused, true);

      const refused = await buy(agent, market._id);
      // A business refusal, as for a suspended agent (client-contract §1.5): 200, success false.
      assert.equal(refused.status, 200);
      assert.equal(refused.body.success, false);
      assert.equal(refused.body.error_code, 'trading_paused');
      assert.match(refused.body.error, /Trading is paused/);
      assert.match(refused.body.hint, /"trading_paused": false/);
      const sell = await trade(agent, { market_id: market._id, side: 'yes', action: 'sell', shares: 1 });
      assert.equal(sell.body.error_code, 'trading_paused');
      assert.equal((await buy(agent, market._id, { dry_run: true })).body.success, true);

      const seen = await cooldowns(agent, asUser(user)).expect(200);
      assert.equal(seen.body.trading_paused, true);
      assert.ok(seen.body.cooldowns.some((c: { type: string }) => c.type === 'kill_switch'));

      const resume = await patchSettings(asAgent(agent), { trading_paused: false });
      assert.equal(resume.status, 403, 'an agent key cannot lift its human’s pause');
      assert.equal(resume.body.error_code, 'paused_by_owner');
      await patchSettings(asAgent(agent), { trading_paused: true }).expect(200);
      const still = await api().get('/api/sdk/user/settings').set(asUser(user)).expect(200);
      assert.equal(still.body.trading_paused, true);
      assert.equal(still.body.paused_by, 'user', 'pausing again with the key does not take the pause over');

      await patchSettings(asUser(user), { trading_paused: false }).expect(200);
      assert.equal((await buy(agent, market._id)).body.success, true);
      // The agent may pause and resume itself.
      assert.equal(
        (await patchSettings(asAgent(agent), { trading_paused: true }).expect(200)).body.paused_by,
        'agent',
      );
      assert.equal(
        (await patchSettings(asAgent(agent), { trading_paused: false }).expect(200)).body.trading_paused,
        false,
      );
    });

    it('when the kill switch turns on while a trade waits in the queue, then the worker refuses it', async () => {
      const { deps } = testContext();
      const { user, agent } = await claimedAgent();
      const market = await makeMarket();
      const sub = JSON.parse(Buffer.from(user.split('.')[1]!, 'base64url').toString()).sub as string;
      // Recorded and accepted as the API does before queueing; the pause lands before a worker takes it.
      const tradeId = randomUUID();
      await deps.models.Trade.create({
        _id: tradeId,
        agentId: agent.agent_id,
        marketId: market._id,
        venue: 'sim',
        side: 'yes',
        action: 'buy',
        amountMicro: 5_000_000,
        status: 'pending',
        ownerKey: `user:${sub}`,
      });
      await patchSettings(asUser(user), { trading_paused: true }).expect(200);
      const run = await deps.queues.enqueueAndWait('execute-trade', { tradeId }, 10_000);
      assert.equal(run.state, 'completed');
      const answer = (run as { result: { success: boolean; error_code: string } }).result;
      assert.equal(answer.success, false);
      assert.equal(answer.error_code, 'trading_paused');
      const stored = await deps.models.Trade.findById(tradeId).lean();
      assert.equal(stored!.status, 'rejected');
      assert.equal((await deps.models.Agent.findById(agent.agent_id).lean())!.balanceMicro, 10_000_000_000);
    });

    it('when an agent has been released, then its key can neither read its former owner’s settings nor change them', async () => {
      const { user, agent } = await claimedAgent();
      await api().post(`/api/sdk/agents/${agent.agent_id}/release`).set(asUser(user)).expect(200);
      const read = await api().get('/api/sdk/settings').set(asAgent(agent)).expect(403);
      assert.equal(read.body.error_code, 'agent_suspended');
      const res = await patchSettings(asAgent(agent), { max_trades_per_day: 500 });
      assert.equal(res.status, 403);
      assert.equal(res.body.error_code, 'agent_suspended');
      const seen = await api().get('/api/sdk/user/settings').set(asUser(user)).expect(200);
      assert.equal(seen.body.max_trades_per_day, 50);
    });

    it('when a claimed agent trades on a real venue, then the real-trading switch and the per-trade cap answer first', async () => {
      const { user, agent } = await claimedAgent();
      const market = await makeMarket();
      const tooBig = await trade(agent, {
        market_id: market._id,
        side: 'yes',
        amount: 150,
        venue: 'polymarket',
      });
      assert.equal(tooBig.status, 422);
      assert.deepEqual(tooBig.body.detail[0].loc, ['body', 'amount']);
      assert.match(tooBig.body.detail[0].msg, /\$150\.00 is above the per-trade limit of \$100\.00/);
      assert.match(tooBig.body.fix, /at most \$100\.00/);
      await patchSettings(asUser(user), { sdk_real_trading_enabled: false }, '/api/sdk/settings').expect(200);
      const off = await trade(agent, { market_id: market._id, side: 'yes', amount: 10, venue: 'polymarket' });
      assert.equal(off.status, 200);
      assert.equal(off.body.success, false);
      assert.equal(off.body.error_code, 'real_trading_disabled');
      const me = await api().get('/api/sdk/agents/me').set(asAgent(agent)).expect(200);
      assert.equal(me.body.real_trading_enabled, false);
    });
  });

  describe('cooldowns', () => {
    let saved: Pick<Env, 'SIM_COOLDOWN_SECONDS' | 'FAILED_TRADE_COOLDOWN_SECONDS'>;
    before(() => {
      const { env } = testContext().deps;
      saved = {
        SIM_COOLDOWN_SECONDS: env.SIM_COOLDOWN_SECONDS,
        FAILED_TRADE_COOLDOWN_SECONDS: env.FAILED_TRADE_COOLDOWN_SECONDS,
      };
      Object.assign(env, { SIM_COOLDOWN_SECONDS: 120, FAILED_TRADE_COOLDOWN_SECONDS: 1800 });
    });
    after(() => Object.assign(testContext().deps.env, saved));

    /** Runs `fn` with the service's clock stopped at one moment, so that cooldown ends are exact. */
    async function atFixedTime(fn: (now: Date) => Promise<void>) {
      const { deps } = testContext();
      const clock = deps.clock;
      const now = new Date();
      deps.clock = () => now;
      try {
        await fn(now);
      } finally {
        deps.clock = clock;
      }
    }

    it('when a free agent buys the same market side twice within 120 s on sim, then the second is refused until the cooldown ends', async () => {
      const agent = await registerAgent();
      const market = await makeMarket();
      await atFixedTime(async (now) => {
        const first = await buy(agent, market._id);
        assert.equal(first.body.success, true);
        const again = await buy(agent, market._id);
        assert.equal(again.status, 429);
        assert.equal(again.body.error_code, 'market_cooldown');
        assert.match(again.body.error, /one YES buy per market every 120 s/);
        assert.equal(again.body.expires_at, new Date(now.getTime() + 120_000).toISOString());
        assert.equal(again.headers['retry-after'], '120');
      });
      assert.equal(
        (await buy(agent, market._id, { side: 'no' })).body.success,
        true,
        'the other side is open',
      );
      const sell = await trade(agent, { market_id: market._id, side: 'yes', action: 'sell', shares: 1 });
      assert.equal(sell.body.success, true, 'sells have no cooldown');

      const seen = await cooldowns(agent).expect(200);
      const sides = seen.body.cooldowns
        .filter((c: { kind: string }) => c.kind === 'market_cooldown')
        .map((c: { side: string; market_id: string; type: string }) => [c.market_id, c.side, c.type]);
      assert.deepEqual(sides.sort(), [
        [market._id, 'no', 'rate_limit'],
        [market._id, 'yes', 'rate_limit'],
      ]);
      assert.equal(seen.body.cooldowns[0].question, market.question);
      assert.ok(seen.body.cooldowns.every((c: { seconds_remaining: number }) => c.seconds_remaining > 0));
    });

    it('when a buy is refused for the agent’s own reasons, then it gives back its market cooldown and its count', async () => {
      const agent = await registerAgent();
      const [rich, other] = await Promise.all([makeMarket(), makeMarket()]);
      await spend(agent, 9500);
      assert.equal((await buy(agent, rich._id, { amount: 490 })).body.success, true);
      const broke = await buy(agent, other._id, { amount: 50 });
      assert.match(broke.body.error, /insufficient balance/i);
      const seen = await cooldowns(agent).expect(200);
      const held = seen.body.cooldowns.map((c: { market_id: string }) => c.market_id);
      assert.ok(held.includes(rich._id), 'the buy that filled holds its cooldown');
      assert.ok(!held.includes(other._id), 'the refused buy gave its cooldown back');
      assert.equal(
        seen.body.daily.trades_today,
        20,
        'nineteen to spend down, one on rich; not the refused one',
      );
      assert.equal((await buy(agent, other._id, { amount: 1 })).body.success, true);
    });

    it('when a buy whose cooldown already expired is released late, then a newer buy’s cooldown stays', async () => {
      const { deps } = testContext();
      const prefix = `${deps.env.QUEUE_PREFIX}-late-${randomUUID().slice(0, 8)}`;
      const target = {
        agentId: randomUUID(),
        venue: 'sim' as const,
        marketId: randomUUID(),
        side: 'yes' as const,
      };
      const admit = (now: Date) =>
        admitBuy(deps.redis, prefix, {
          ...target,
          ownerKey: `agent:${target.agentId}`,
          now,
          marketCooldownMs: 120_000,
          maxTradesPerDay: 50,
          spendMicro: 0,
          dailyLimitMicro: null,
        });
      const t0 = new Date();
      const first = await admit(t0);
      assert.ok(first.ok);
      const later = new Date(t0.getTime() + 121_000);
      assert.ok((await admit(later)).ok, 'the first cooldown has run out');
      await releaseAdmission(deps.redis, prefix, target.agentId, first.admission, later);
      const third = await admit(new Date(later.getTime() + 1000));
      assert.equal(third.ok, false, 'the second buy’s cooldown still holds');
    });

    it('when the owner is on the pro tier, then there is no per-market cooldown on sim', async () => {
      const { agent } = await claimedAgent('pro');
      const market = await makeMarket();
      assert.equal((await buy(agent, market._id)).body.success, true);
      assert.equal((await buy(agent, market._id)).body.success, true);
    });

    it('when a buy fails at the market, then that side is closed for 30 minutes and the cooldown lists it', async () => {
      const { user, agent } = await claimedAgent('pro');
      const market = await makeMarket();
      const failed = await buy(agent, market._id, { price: 0.01 });
      assert.equal(failed.body.success, false);
      const blocked = await buy(agent, market._id);
      assert.equal(blocked.status, 429);
      assert.equal(blocked.body.error_code, 'failed_trade_cooldown');
      assert.match(blocked.body.fix, /include_failed=true/);
      // Closed for 30 minutes from the moment the buy failed, as its trade records it.
      const { finishedAt } = (await testContext().deps.models.Trade.findById(failed.body.trade_id).lean())!;
      assert.equal(blocked.body.expires_at, new Date(finishedAt!.getTime() + 1_800_000).toISOString());
      assert.equal((await buy(agent, market._id, { side: 'no' })).body.success, true);

      const seen = await cooldowns(agent, asUser(user)).expect(200);
      const entry = seen.body.cooldowns.find((c: { kind: string }) => c.kind === 'failed_trade_cooldown');
      assert.equal(entry.type, 'failure');
      assert.equal(entry.side, 'yes');
      assert.equal(entry.expires_at, blocked.body.expires_at);

      // A refusal about the agent itself (not enough balance) does not close the side.
      const other = await makeMarket();
      await spend(agent, 9990);
      const broke = await buy(agent, other._id, { amount: 50 });
      assert.equal(broke.body.success, false);
      assert.match(broke.body.error, /insufficient balance/i);
      assert.equal((await buy(agent, other._id, { amount: 1 })).body.success, true);
    });

    it('when someone else asks for an agent’s cooldowns, then 404; the agent’s own key and its owner’s token see them', async () => {
      const { user, agent } = await claimedAgent();
      const stranger = await registerAgent();
      await cooldowns(agent).expect(200);
      await cooldowns(agent, asUser(user)).expect(200);
      assert.equal((await cooldowns(agent, asAgent(stranger))).status, 404);
      assert.equal((await cooldowns(agent, asUser(tokenFor(`u-${randomUUID()}`)))).status, 404);
      assert.equal((await api().get(`/api/sdk/agents/${agent.agent_id}/cooldowns`)).status, 401);
    });
  });
});
