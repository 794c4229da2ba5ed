import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import { externalVenueIds } from '../../shared/domains/venues/venue-id.js';
import { depositWalletOf } from '../emulators/polymarket/index.js';
import { makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import {
  asAgent,
  claimedWithRealTrading,
  importedMarket,
  linkExternalWallet,
  managedTrader,
  ownerIdOf,
  polymarketTrade,
  setTier,
} from '../support/polymarket-traders.js';
import { asUser } from '../support/users.js';

/**
 * `GET /api/sdk/agents/me?include=pnl` (client-contract §3.2, §10: `polymarket_pnl`, `kalshi_pnl`
 * are read; `total_pnl` is all venues) counts each venue as the portfolio does, and the per-agent
 * deposit-wallet fields name the deposit wallet the agent trades through.
 */

const me = (agent: RegisteredAgent, query = '') =>
  api().get(`/api/sdk/agents/me${query}`).set(asAgent(agent)).expect(200);

/** A body-less POST as the Python client sends one. */
const bodyless = (path: string, auth: Record<string, string>) =>
  api().post(path).set(auth).set('Content-Type', 'application/json');

const micro = (n: number) => Math.round(n * 1e6);

describe('agents/me: P&L per venue and the per-agent deposit wallet #integration', () => {
  it('when an agent holds a Polymarket and a sim position, then include=pnl has each venue’s P&L as the portfolio counts it and total_pnl is their sum', async () => {
    const { agent } = await managedTrader();
    const m = await importedMarket(agent);
    const bought = await polymarketTrade(agent, { market_id: m.marketId, side: 'yes', amount: 6 }).expect(
      200,
    );
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    const sim = await makeMarket();
    const simBuy = await trade(agent, { market_id: sim._id, side: 'yes', amount: 25 });
    assert.equal(simBuy.body.success, true, JSON.stringify(simBuy.body));

    const [view, portfolio] = await Promise.all([
      me(agent, '?include=pnl'),
      api().get('/api/sdk/portfolio').set(asAgent(agent)).expect(200),
    ]);
    const pnl = view.body;
    // Bought above the venue's 0.55 mark: a real, non-zero P&L, the portfolio's bucket's.
    assert.notEqual(pnl.polymarket_pnl, 0, JSON.stringify(pnl));
    assert.equal(pnl.polymarket_pnl, portfolio.body.polymarket.pnl);
    assert.equal(pnl.sim_pnl, portfolio.body.sim.pnl);
    assert.equal(pnl.sim_pnl, portfolio.body.sim_pnl);
    for (const v of externalVenueIds())
      assert.equal(pnl[`${v}_pnl`], portfolio.body[v]?.pnl ?? 0, `${v}_pnl`);
    const venues = ['sim', ...externalVenueIds()].map((v) => micro(pnl[`${v}_pnl`]));
    assert.equal(
      micro(pnl.total_pnl),
      venues.reduce((s, x) => s + x, 0),
      'total_pnl is all venues',
    );
    assert.notEqual(pnl.total_pnl, pnl.sim_pnl);
  });

  it('when the agent’s account trades through a deposit wallet, then per_agent_deposit_wallet_address is the one its per-agent routes act on, and active', async () => {
    const { agent, token } = await claimedWithRealTrading();
    const owner = Wallet.createRandom() as unknown as Wallet;
    await linkExternalWallet(agent, owner);
    const before = (await me(agent)).body;
    assert.equal(before.per_agent_deposit_wallet_address, null);
    assert.equal(before.per_agent_dw_active, false, 'an EOA wallet: known not to use a deposit wallet');

    await bodyless('/api/user/wallet/external-upgrade-to-deposit-wallet', asAgent(agent)).expect(200);
    const after = (await me(agent)).body;
    assert.equal(after.per_agent_deposit_wallet_address, depositWalletOf(owner.address));
    assert.equal(after.per_agent_dw_active, true);
    const route = await bodyless(
      `/api/user/agent/${agent.agent_id}/wallet/external/dw-approvals/prepare`,
      asUser(token),
    ).expect(200);
    assert.equal(after.per_agent_deposit_wallet_address, route.body.deposit_wallet_address);

    // Its own (Elite) wallet is an EOA the service signs for: no deposit wallet, and the client must not sign as one.
    await setTier(await ownerIdOf(agent), 'elite');
    const own = await api().post('/api/sdk/agent-wallet/register').set(asAgent(agent)).send({}).expect(201);
    const elite = (await me(agent)).body;
    assert.equal(elite.per_agent_wallet_address, own.body.wallet_address);
    assert.equal(elite.per_agent_deposit_wallet_address, null);
    assert.equal(elite.per_agent_dw_active, false);
  });

  it('when the agent has no wallet at all (unclaimed), then the per-agent wallet fields are null', async () => {
    const body = (await me(await registerAgent())).body;
    assert.equal(body.per_agent_wallet_address, null);
    assert.equal(body.per_agent_deposit_wallet_address, null);
    assert.equal(body.per_agent_dw_active, null);
  });
});
