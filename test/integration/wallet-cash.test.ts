import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { depositWalletAddress } from '../../shared/domains/venues/polymarket/onchain/deposit-wallet/deposit-wallet-address.js';
import { testContext } from '../support/context.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { kalshiTrader } from '../support/kalshi-traders.js';
import { asAgent, externalTrader } from '../support/polymarket-traders.js';
import { polymarketAdmin } from '../support/venue-emulators.js';

/**
 * The cash in the owner's venue wallets (issue 26 item 2): read from the emulated chains, shown with
 * its age in the portfolio, the briefing and the settings; a chain that cannot be read answers the
 * last value read with a warning, or null with one, never 0.
 */

const get = (agent: RegisteredAgent, path: string) => api().get(path).set(asAgent(agent)).expect(200);

/** Runs `fn` with the wallet cash read from the chain on every call (no 20 s cache). */
async function uncached<T>(fn: () => Promise<T>): Promise<T> {
  const { env } = testContext().deps;
  const saved = env.WALLET_CASH_CACHE_SECONDS;
  env.WALLET_CASH_CACHE_SECONDS = 0;
  try {
    return await fn();
  } finally {
    env.WALLET_CASH_CACHE_SECONDS = saved;
  }
}

/** Runs `fn` uncached with every Polygon RPC call failing (HTTP 500). */
async function withPolygonDown<T>(fn: () => Promise<T>): Promise<T> {
  await polymarketAdmin('POST', '/faults', { mode: '500', path_prefix: '/polygon' });
  try {
    return await uncached(fn);
  } finally {
    await polymarketAdmin('DELETE', '/faults');
    // The Polygon client's breaker may have opened: let its cooldown (1 s in tests) pass.
    await sleep(1100);
  }
}

describe('Venue wallet cash in the portfolio, briefing and settings', () => {
  it('a linked wallet funded with pUSD shows it with its age everywhere; allowances_set follows the chain', async () => {
    const t = await externalTrader({ approved: false });
    const started = Date.now();

    const portfolio = (await get(t.agent, '/api/sdk/portfolio?venue=polymarket')).body;
    assert.equal(portfolio.balance_usdc, 1000, JSON.stringify(portfolio));
    assert.equal(portfolio.polymarket.balance, 1000);
    assert.equal(portfolio.polymarket.wallet_address, t.wallet.address);
    assert.equal(portfolio.polymarket.balance_stale, false);
    assert.equal(portfolio.polymarket.balance_warning, null);
    const checkedAt = Date.parse(portfolio.polymarket.balance_checked_at);
    assert.ok(
      checkedAt >= started - 1000 && checkedAt <= Date.now(),
      portfolio.polymarket.balance_checked_at,
    );

    const briefing = (await get(t.agent, '/api/sdk/briefing')).body;
    assert.equal(briefing.venues.polymarket.balance, 1000, JSON.stringify(briefing.venues));
    assert.equal(briefing.venues.polymarket.currency, 'USDC');
    // Read once, cached: the same read (and age) answers every route for a while.
    assert.equal(briefing.venues.polymarket.balance_checked_at, portfolio.polymarket.balance_checked_at);

    const settings = (await get(t.agent, '/api/sdk/settings')).body;
    assert.equal(settings.polymarket_usdc_balance, 1000);
    assert.equal(settings.polymarket_balance_checked_at, portfolio.polymarket.balance_checked_at);
    assert.equal(settings.polymarket_allowances_set, false);
    assert.deepEqual(settings.balance_warnings, []);

    // Approvals set on chain; the client re-reads its allowances without the cache, as it does after set_approvals().
    await polymarketAdmin('POST', `/wallets/${t.wallet.address}/approve`);
    await api()
      .get(`/api/polymarket/allowances/${t.wallet.address}?no_cache=1`)
      .set(asAgent(t.agent))
      .expect(200);
    await polymarketAdmin('POST', `/wallets/${t.wallet.address}/balances`, { pusd: 990 });
    const after = (await uncached(() => get(t.agent, '/api/sdk/settings'))).body;
    assert.equal(after.polymarket_allowances_set, true);
    assert.equal(after.polymarket_usdc_balance, 990);
  });

  it('an account trading through a deposit wallet (type 3): allowances_set and the balance are the deposit wallet’s, not the EOA’s', async () => {
    // The EOA's approvals are all set and it holds 1000 pUSD; its deposit wallet has neither yet.
    const t = await externalTrader({ approved: true });
    const eoa = (await uncached(() => get(t.agent, '/api/sdk/settings'))).body;
    assert.equal(eoa.polymarket_allowances_set, true, JSON.stringify(eoa));
    const up = await api()
      .post('/api/user/wallet/external-upgrade-to-deposit-wallet')
      .set(asAgent(t.agent))
      .set('Content-Type', 'application/json')
      .expect(200);
    const dw = up.body.deposit_wallet_address as string;
    assert.equal(dw, depositWalletAddress(t.wallet.address));

    const before = (await uncached(() => get(t.agent, '/api/sdk/settings'))).body;
    assert.equal(before.wallet_uses_deposit_wallet, true);
    assert.equal(before.deposit_wallet_address, dw);
    assert.equal(before.polymarket_allowances_set, false, 'the deposit wallet has no approvals yet');
    assert.equal(before.polymarket_usdc_balance, 0);

    // Approvals set on the deposit wallet; the client re-reads its allowances without the cache.
    await polymarketAdmin('POST', `/wallets/${dw}/approve`);
    await polymarketAdmin('POST', `/wallets/${dw}/fund`, { pusd: 25 });
    await api().get(`/api/polymarket/allowances/${dw}?no_cache=1`).set(asAgent(t.agent)).expect(200);
    const after = (await uncached(() => get(t.agent, '/api/sdk/settings'))).body;
    assert.equal(after.polymarket_allowances_set, true);
    assert.equal(after.polymarket_usdc_balance, 25);
  });

  it('Polygon unreachable: the last balance read with its age and a warning, never 0', async () => {
    const t = await externalTrader();
    const first = (await get(t.agent, '/api/sdk/portfolio?venue=polymarket')).body.polymarket;
    assert.equal(first.balance, 1000);

    await withPolygonDown(async () => {
      const p = (await get(t.agent, '/api/sdk/portfolio?venue=polymarket')).body;
      assert.equal(p.polymarket.balance, 1000, JSON.stringify(p));
      assert.equal(p.polymarket.balance_stale, true);
      assert.equal(p.polymarket.balance_checked_at, first.balance_checked_at);
      assert.match(p.polymarket.balance_warning, /could not be read now .*read at/);
      assert.ok(p.warnings.some((w: string) => /polymarket wallet's balance could not be read/.test(w)));
      const s = (await get(t.agent, '/api/sdk/settings')).body;
      assert.equal(s.polymarket_usdc_balance, 1000);
      assert.equal(s.polymarket_balance_checked_at, first.balance_checked_at);
      assert.equal(s.balance_warnings.length, 1);
    });
  });

  it('Polygon unreachable and never read: null with a warning, in the portfolio, briefing and settings', async () => {
    const t = await externalTrader();
    await withPolygonDown(async () => {
      const p = (await get(t.agent, '/api/sdk/portfolio?venue=polymarket')).body;
      assert.equal(p.balance_usdc, null, JSON.stringify(p));
      assert.equal(p.polymarket.balance, null);
      assert.equal(p.polymarket.balance_checked_at, null);
      assert.match(p.polymarket.balance_warning, /unknown, not 0/);
      const b = (await get(t.agent, '/api/sdk/briefing')).body;
      assert.equal(b.venues.polymarket.balance, null);
      assert.ok(b.risk_warnings.some((w: string) => /unknown, not 0/.test(w)));
      const s = (await get(t.agent, '/api/sdk/settings')).body;
      assert.equal(s.polymarket_usdc_balance, null);
      assert.equal(s.polymarket_balance_checked_at, null);
      assert.match(s.balance_warnings[0], /unknown, not 0/);
    });
  });

  it('the registered Solana wallet’s USDC is the Kalshi balance', async () => {
    const t = await kalshiTrader();
    // Registering the wallet answered the settings with its balance before the funding: read again.
    const s = (await uncached(() => get(t.agent, '/api/sdk/settings'))).body;
    assert.equal(s.kalshi_usdc_balance, 1000, JSON.stringify(s));
    assert.equal(typeof s.kalshi_balance_checked_at, 'string');
    assert.equal(s.kalshi_allowances_set, undefined);
    const p = (await get(t.agent, '/api/sdk/portfolio?venue=kalshi')).body;
    assert.equal(p.kalshi.balance, 1000);
    assert.equal(p.kalshi.wallet_address, t.wallet.publicKey.toBase58());
    assert.equal(p.balance_usdc, 1000);
  });

  it('an unclaimed agent has no venue wallets: balances null in settings, 0 in the buckets', async () => {
    const agent = await registerAgent({ name: 'no-wallet' });
    const s = (await get(agent, '/api/sdk/settings')).body;
    assert.equal(s.polymarket_usdc_balance, null);
    assert.equal(s.polymarket_allowances_set, false);
    assert.equal(s.kalshi_usdc_balance, null);
    const p = (await get(agent, '/api/sdk/portfolio')).body;
    assert.equal(p.balance_usdc, 0);
    assert.equal(p.polymarket.balance, 0);
    assert.equal(p.polymarket.balance_checked_at, null);
  });
});
