import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import { syncVenueOrders } from '../../shared/domains/trading/venue-orders.js';
import { agentWalletSigner } from '../../shared/domains/wallets/agent-wallets.js';
import { testContext } from '../support/context.js';
import { api, registerAgent } from '../support/http.js';
import {
  asAgent,
  claimedAgent,
  claimedWithRealTrading,
  importedMarket,
  ownerIdOf,
  polymarketTrade,
  setTier,
} from '../support/polymarket-traders.js';
import { asUser, claim } from '../support/users.js';
import { polymarketAdmin } from '../support/venue-emulators.js';

interface VenueWallet {
  pusd: number;
  tokens: Record<string, number>;
}

const register = (auth: Record<string, string>, body: Record<string, unknown> = {}) =>
  api().post('/api/sdk/agent-wallet/register').set(auth).send(body);

/** A claimed agent whose human is on the Elite tier and switched real trading on. */
async function eliteAgent() {
  const claimed = await claimedWithRealTrading();
  await setTier(await ownerIdOf(claimed.agent), 'elite');
  return claimed;
}

/** An Elite agent with its own wallet registered, funded and approved on the emulator. */
async function eliteAgentWithWallet() {
  const { agent, token } = await eliteAgent();
  const res = await register(asAgent(agent)).expect(201);
  const address = res.body.wallet_address as string;
  await polymarketAdmin('POST', `/wallets/${address}/fund`, { pusd: 300 });
  await polymarketAdmin('POST', `/wallets/${address}/approve`);
  return { agent, token, address };
}

describe('Agent wallets: Elite gate, routing, P&L #integration', function () {
  this.timeout(60_000);

  it('when a free-tier human registers an agent wallet, then 403 elite_required with an upgrade fix, and none is made', async () => {
    const { agent, token } = await claimedAgent();
    for (const [auth, body] of [
      [asAgent(agent), {}],
      [asUser(token), { agent_id: agent.agent_id }],
    ] as const) {
      const res = await register(auth, body).expect(403);
      assert.equal(res.body.error_code, 'elite_required', JSON.stringify(res.body));
      assert.match(res.body.error, /Elite/);
      assert.match(res.body.fix, /Elite tier/);
      assert.equal(res.body.tier, 'free');
    }
    await setTier(await ownerIdOf(agent), 'pro');
    assert.equal((await register(asAgent(agent)).expect(403)).body.tier, 'pro');
    assert.equal(await testContext().deps.models.AgentWallet.countDocuments({ _id: agent.agent_id }), 0);
  });

  it('when an Elite human registers, then 201 with a managed wallet, and every later or concurrent call answers the same one', async () => {
    const { agent, token } = await eliteAgent();
    const calls = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2 ? register(asAgent(agent)) : register(asUser(token), { agent_id: agent.agent_id }),
      ),
    );
    for (const res of calls) assert.equal(res.status, 201, JSON.stringify(res.body));
    const addresses = new Set(calls.map((r) => r.body.wallet_address));
    assert.equal(addresses.size, 1, 'one wallet');
    assert.equal(calls.filter((r) => r.body.created).length, 1, 'created once');
    const first = calls[0]!.body;
    assert.equal(first.agent_id, agent.agent_id);
    assert.equal(first.wallet_source, 'managed');
    assert.equal(first.clob_credentials_registered, false);
    assert.equal(first.approvals_set, false);
    assert.ok(!Number.isNaN(Date.parse(first.created_at)));
    const again = await register(asAgent(agent)).expect(201);
    assert.equal(again.body.wallet_address, first.wallet_address);
    assert.equal(again.body.created, false);
    // The client reads the agent's own wallet from agents/me (client-contract §3.2).
    const me = await api().get('/api/sdk/agents/me').set(asAgent(agent)).expect(200);
    assert.equal(me.body.per_agent_wallet_address, first.wallet_address);
    const { deps } = testContext();
    assert.equal(await deps.models.AgentWallet.countDocuments({ _id: agent.agent_id }), 1);
    // The key opens for the address it was made for, and is nowhere in clear.
    const signer = (await agentWalletSigner(deps, agent.agent_id))!;
    assert.equal(signer.address, first.wallet_address);
    const dump = JSON.stringify(await deps.models.AgentWallet.collection.find({}).toArray()).toLowerCase();
    assert.ok(!dump.includes(signer.privateKey.slice(2).toLowerCase()), 'the private key in clear');
    // Whom a registration is for: an agent key only for itself, a token for one of the user's agents.
    const other = await registerAgent();
    const mismatch = await register(asAgent(agent), { agent_id: other.agent_id }).expect(403);
    assert.equal(mismatch.body.error_code, 'agent_mismatch');
    assert.ok(mismatch.body.fix);
    await register(asUser(token), { agent_id: other.agent_id }).expect(404);
    const missing = await register(asUser(token), {}).expect(422);
    assert.ok(missing.body.fix);
  });

  it('when the client registers an OWS wallet, then 410 with a fix pointing to the managed agent wallet', async () => {
    const { agent } = await eliteAgent();
    const res = await register(asAgent(agent), {
      ows_wallet_name: 'my-ows-wallet',
      wallet_address: Wallet.createRandom().address,
      wallet_source: 'ows',
    }).expect(410);
    assert.equal(res.body.error_code, 'ows_registration_closed', JSON.stringify(res.body));
    assert.match(res.body.fix, /managed per-agent wallet/);
    assert.match(res.body.fix, /without wallet_source/);
    assert.equal(await testContext().deps.models.AgentWallet.countDocuments({ _id: agent.agent_id }), 0);
  });

  it('when a human has agent wallets, then they are listed with a user token and with an agent key, and to no one else', async () => {
    const { agent, token } = await eliteAgent();
    const secondName = `second-${agent.agent_id.slice(0, 8)}`;
    const second = await registerAgent({ name: secondName });
    await claim(token, second.claim_code).expect(200);
    const a = await register(asUser(token), { agent_id: agent.agent_id }).expect(201);
    const b = await register(asUser(token), { agent_id: second.agent_id }).expect(201);
    const byUser = await api().get('/api/sdk/agent-wallets').set(asUser(token)).expect(200);
    const byAgent = await api().get('/api/sdk/agent-wallets').set(asAgent(second)).expect(200);
    assert.deepEqual(byAgent.body, byUser.body);
    assert.equal(byUser.body.wallets.length, 2, JSON.stringify(byUser.body));
    const rows = new Map(
      (byUser.body.wallets as { agent_id: string }[]).map((w) => [w.agent_id, w as Record<string, unknown>]),
    );
    assert.deepEqual(Object.keys(rows.get(agent.agent_id)!).sort(), [
      'agent_id',
      'agent_name',
      'approvals_set',
      'clob_credentials_registered',
      'created_at',
      'wallet_address',
      'wallet_source',
    ]);
    assert.equal(rows.get(agent.agent_id)!.wallet_address, a.body.wallet_address);
    assert.equal(rows.get(second.agent_id)!.wallet_address, b.body.wallet_address);
    assert.equal(rows.get(second.agent_id)!.agent_name, secondName);
    assert.notEqual(a.body.wallet_address, b.body.wallet_address);
    const stranger = await claimedAgent();
    const theirs = await api().get('/api/sdk/agent-wallets').set(asUser(stranger.token)).expect(200);
    assert.deepEqual(theirs.body, { wallets: [] });
  });

  it('when update-creds stores CLOB credentials, then the wallet shows them registered (sealed), and a wallet not the caller’s is 404', async () => {
    const { agent, token } = await eliteAgent();
    const sibling = await registerAgent();
    await claim(token, sibling.claim_code).expect(200);
    const { body: wallet } = await register(asAgent(agent)).expect(201);
    const creds = {
      api_key: crypto.randomUUID(),
      api_secret: `secret-${crypto.randomUUID()}`,
      api_passphrase: `pass-${crypto.randomUUID()}`,
    };
    const update = (auth: Record<string, string>, address: string) =>
      api()
        .post('/api/sdk/agent-wallet/update-creds')
        .set(auth)
        .send({ wallet_address: address, clob_api_creds: creds, approvals_set: true });
    // Another agent of the same human, a stranger and an unknown address all get the same 404.
    const stranger = await claimedAgent();
    for (const [auth, address] of [
      [asAgent(sibling), wallet.wallet_address],
      [asUser(stranger.token), wallet.wallet_address],
      [asAgent(agent), Wallet.createRandom().address],
    ] as const) {
      const res = await update(auth, address).expect(404);
      assert.ok(res.body.fix, JSON.stringify(res.body));
    }
    const res = await update(asAgent(agent), wallet.wallet_address.toLowerCase()).expect(200);
    assert.equal(res.body.wallet_address, wallet.wallet_address);
    assert.equal(res.body.clob_credentials_registered, true);
    assert.equal(res.body.approvals_set, true);
    const listed = await api().get('/api/sdk/agent-wallets').set(asUser(token)).expect(200);
    assert.equal(listed.body.wallets[0].clob_credentials_registered, true);
    const dump = JSON.stringify(
      await testContext().deps.models.AgentWallet.collection.find({}).toArray(),
    ).toLowerCase();
    assert.ok(!dump.includes(creds.api_secret.toLowerCase()), 'the secret in clear');
    assert.ok(!dump.includes(creds.api_passphrase.toLowerCase()), 'the passphrase in clear');
  });

  it('when a buy carries the agent wallet address, then the agent wallet signs and pays for it, not the human’s wallet', async () => {
    const { agent, token, address } = await eliteAgentWithWallet();
    const settings = await api().get('/api/sdk/settings').set(asUser(token)).expect(200);
    const human = settings.body.wallet_address as string;
    assert.notEqual(human.toLowerCase(), address.toLowerCase());
    await polymarketAdmin('POST', `/wallets/${human}/fund`, { pusd: 200 });
    await polymarketAdmin('POST', `/wallets/${human}/approve`);
    const m = await importedMarket(agent);

    const res = await polymarketTrade(agent, {
      market_id: m.marketId,
      side: 'yes',
      amount: 15,
      wallet_address: address.toLowerCase(),
    }).expect(200);
    assert.equal(res.body.success, true, JSON.stringify(res.body));
    assert.equal(res.body.fill_status, 'unconfirmed', 'matched, settling on chain');
    assert.ok(res.body.shares_bought > 0 && res.body.cost > 0);

    const mine = await polymarketAdmin<VenueWallet>('GET', `/wallets/${address}`);
    const theirs = await polymarketAdmin<VenueWallet>('GET', `/wallets/${human}`);
    assert.equal(Number(mine.tokens[m.yes]), res.body.shares_bought, JSON.stringify(mine));
    assert.ok(Math.abs(300 - mine.pusd - res.body.cost) < 1e-6, JSON.stringify({ mine, res: res.body }));
    assert.equal(theirs.pusd, 200, 'the human’s wallet paid nothing');
    assert.equal(theirs.tokens[m.yes] ?? 0, 0);

    const { deps } = testContext();
    const stored = (await deps.models.Trade.findById(res.body.trade_id).lean())!;
    assert.equal(stored.venueOrder!.signer, 'agent');
    const signed = stored.venueOrder!.signed as { maker: string; signer: string; signatureType: number };
    assert.equal(signed.maker, address);
    assert.equal(signed.signer, address);
    assert.equal(signed.signatureType, 0);
    // Its CLOB credentials were derived with its key on first use, and are kept sealed.
    const wallets = await api().get('/api/sdk/agent-wallets').set(asAgent(agent)).expect(200);
    assert.equal(wallets.body.wallets[0].clob_credentials_registered, true);

    // An address that is not the agent's wallet is refused, and nothing reaches the venue.
    const before = await polymarketAdmin<unknown[]>('GET', `/clob/orders?owner=${address}`);
    const stranger = Wallet.createRandom().address;
    const refused = await polymarketTrade(agent, {
      market_id: m.marketId,
      side: 'yes',
      amount: 5,
      wallet_address: stranger,
    }).expect(200);
    assert.equal(refused.body.success, false);
    assert.equal(refused.body.error_code, 'wallet_not_registered', JSON.stringify(refused.body));
    assert.match(refused.body.error, new RegExp(stranger));
    assert.match(refused.body.hint, new RegExp(address));
    assert.equal(
      (await polymarketAdmin<unknown[]>('GET', `/clob/orders?owner=${address}`)).length,
      before.length,
    );
    assert.equal((await polymarketAdmin<unknown[]>('GET', `/clob/orders?owner=${human}`)).length, 0);
    assert.equal((await polymarketAdmin<VenueWallet>('GET', `/wallets/${human}`)).pusd, 200);

    // The position is held in the agent wallet: the human's wallet does not trade it (one position, one wallet).
    const split = await polymarketTrade(agent, { market_id: m.marketId, side: 'no', amount: 4 }).expect(200);
    assert.equal(split.body.success, false);
    assert.equal(split.body.error_code, 'position_in_other_wallet', JSON.stringify(split.body));
    assert.match(split.body.hint, new RegExp(address, 'i'));
    assert.equal((await polymarketAdmin<unknown[]>('GET', `/clob/orders?owner=${human}`)).length, 0);

    // A sale without wallet_address sells from the wallet holding the position.
    const sold = await polymarketTrade(agent, {
      market_id: m.marketId,
      side: 'yes',
      action: 'sell',
      shares: 5,
      order_type: 'FAK',
    }).expect(200);
    assert.equal(sold.body.success, true, JSON.stringify(sold.body));
    const soldStored = (await deps.models.Trade.findById(sold.body.trade_id).lean())!;
    assert.equal(soldStored.venueOrder!.signer, 'agent');
    assert.equal((soldStored.venueOrder!.signed as { maker: string }).maker, address);

    // Without wallet_address the human's wallet trades, as before, in a market the agent wallet does not hold.
    const other = await importedMarket(agent);
    const plain = await polymarketTrade(agent, { market_id: other.marketId, side: 'no', amount: 4 }).expect(
      200,
    );
    assert.equal(plain.body.success, true, JSON.stringify(plain.body));
    const plainStored = (await deps.models.Trade.findById(plain.body.trade_id).lean())!;
    assert.equal(plainStored.venueOrder!.signer, 'managed');
    assert.equal((plainStored.venueOrder!.signed as { maker: string }).maker, human);
  });

  it('when a position recorded without a holder holds shares in the human’s wallet, then a buy through the agent wallet is refused and the position stays where it is', async () => {
    const { deps } = testContext();
    const { agent, token } = await eliteAgent();
    const settings = await api().get('/api/sdk/settings').set(asUser(token)).expect(200);
    const human = settings.body.wallet_address as string;
    await polymarketAdmin('POST', `/wallets/${human}/fund`, { pusd: 200 });
    await polymarketAdmin('POST', `/wallets/${human}/approve`);
    const m = await importedMarket(agent);
    const bought = await polymarketTrade(agent, { market_id: m.marketId, side: 'yes', amount: 10 }).expect(
      200,
    );
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    const id = `${agent.agent_id}:${m.marketId}:polymarket`;
    // As an older release stored it: no holder recorded.
    await deps.models.Position.updateOne({ _id: id }, { $unset: { holderAddress: 1 } });
    const { body: own } = await register(asAgent(agent)).expect(201);
    const address = own.wallet_address as string;
    await polymarketAdmin('POST', `/wallets/${address}/fund`, { pusd: 300 });
    await polymarketAdmin('POST', `/wallets/${address}/approve`);

    const refused = await polymarketTrade(agent, {
      market_id: m.marketId,
      side: 'yes',
      amount: 5,
      wallet_address: address,
    }).expect(200);
    assert.equal(refused.body.success, false, JSON.stringify(refused.body));
    assert.equal(refused.body.error_code, 'position_in_other_wallet', JSON.stringify(refused.body));
    assert.match(refused.body.hint, new RegExp(human, 'i'));
    assert.equal((await polymarketAdmin<unknown[]>('GET', `/clob/orders?owner=${address}`)).length, 0);
    assert.equal((await polymarketAdmin<VenueWallet>('GET', `/wallets/${address}`)).pusd, 300);
    const position = (await deps.models.Position.findById(id).lean())!;
    assert.equal(position.holderAddress, human.toLowerCase());
    assert.equal(position.sharesYesMicro, Math.round(bought.body.shares_bought * 1e6));

    // When neither the venue (both wallets hold the tokens) nor the fills (no maker recorded) tell,
    // no wallet trades it: a retryable refusal, and nothing reaches the venue.
    await polymarketAdmin('POST', `/wallets/${address}/fund`, { tokens: { [m.yes]: 2 } });
    await deps.models.Position.updateOne({ _id: id }, { $unset: { holderAddress: 1 } });
    await deps.models.Trade.updateMany(
      { agentId: agent.agent_id, marketId: m.marketId },
      { $unset: { 'venueOrder.signed': 1 } },
    );
    const humanOrders = (await polymarketAdmin<unknown[]>('GET', `/clob/orders?owner=${human}`)).length;
    const unknown = await polymarketTrade(agent, { market_id: m.marketId, side: 'yes', amount: 5 }).expect(
      200,
    );
    assert.equal(unknown.body.success, false, JSON.stringify(unknown.body));
    assert.equal(unknown.body.error_code, 'holder_unknown', JSON.stringify(unknown.body));
    assert.equal(unknown.body.retryable, true);
    assert.equal(
      (await polymarketAdmin<unknown[]>('GET', `/clob/orders?owner=${human}`)).length,
      humanOrders,
    );
    assert.equal((await deps.models.Position.findById(id).lean())!.holderAddress ?? null, null);
  });

  it('when a resting buy from the agent wallet fills after the human’s wallet became the holder, then the position keeps its holder', async () => {
    const { deps } = testContext();
    const { agent, token, address } = await eliteAgentWithWallet();
    const settings = await api().get('/api/sdk/settings').set(asUser(token)).expect(200);
    const human = settings.body.wallet_address as string;
    await polymarketAdmin('POST', `/wallets/${human}/fund`, { pusd: 200 });
    await polymarketAdmin('POST', `/wallets/${human}/approve`);
    const m = await importedMarket(agent);
    // Both pass the holder check: the position holds nothing yet.
    const resting = await polymarketTrade(agent, {
      market_id: m.marketId,
      side: 'yes',
      amount: 10,
      price: 0.2,
      order_type: 'GTC',
      wallet_address: address,
    }).expect(200);
    assert.equal(resting.body.order_status, 'live', JSON.stringify(resting.body));
    const bought = await polymarketTrade(agent, { market_id: m.marketId, side: 'yes', amount: 10 }).expect(
      200,
    );
    assert.equal(bought.body.success, true, JSON.stringify(bought.body));
    const id = `${agent.agent_id}:${m.marketId}:polymarket`;
    assert.equal((await deps.models.Position.findById(id).lean())!.holderAddress, human.toLowerCase());

    await polymarketAdmin('POST', `/clob/orders/${resting.body.venue_order_id}/cross`);
    await syncVenueOrders(deps);
    const stored = (await deps.models.Trade.findById(resting.body.trade_id).lean())!;
    assert.equal(stored.venueOrder!.matchedSharesMicro, 50_000_000);
    const position = (await deps.models.Position.findById(id).lean())!;
    assert.equal(position.sharesYesMicro, Math.round(bought.body.shares_bought * 1e6) + 50_000_000);
    assert.equal(
      position.holderAddress,
      human.toLowerCase(),
      'the position did not move to the agent wallet',
    );
  });

  it('when an agent has bought on Polymarket, then its P&L shows the real positions only, consistently, on every tier', async () => {
    const { agent, token, address } = await eliteAgentWithWallet();
    const m = await importedMarket(agent);
    const sim = await api()
      .post('/api/sdk/trade')
      .set(asAgent(agent))
      .send({ market_id: m.marketId, side: 'yes', amount: 7, venue: 'sim' })
      .expect(200);
    assert.equal(sim.body.success, true, JSON.stringify(sim.body));
    const buy = await polymarketTrade(agent, {
      market_id: m.marketId,
      side: 'yes',
      amount: 20,
      wallet_address: address,
    }).expect(200);
    assert.equal(buy.body.success, true, JSON.stringify(buy.body));

    const pnl = await api().get(`/api/sdk/agent-wallet/${agent.agent_id}/pnl`).set(asUser(token)).expect(200);
    const p = pnl.body;
    assert.equal(p.agent_id, agent.agent_id);
    assert.equal(p.wallet_address, address);
    assert.equal(p.positions.length, 1, JSON.stringify(p));
    assert.equal(p.positions[0].venue, 'polymarket');
    assert.equal(p.positions[0].shares_yes, buy.body.shares_bought);
    assert.ok(p.total_cost > 0);
    assert.ok(Math.abs(p.total_cost - buy.body.cost) < 1e-6, JSON.stringify({ p, buy: buy.body }));
    assert.equal(p.realized_pnl, 0);
    assert.ok(Math.abs(p.unrealized_pnl - (p.total_value - p.total_cost)) < 1e-6, JSON.stringify(p));
    assert.ok(Math.abs(p.total_pnl - (p.realized_pnl + p.unrealized_pnl)) < 1e-6);
    // The agent reads the same with its own key.
    const own = await api()
      .get(`/api/sdk/agent-wallet/${agent.agent_id}/pnl`)
      .set(asAgent(agent))
      .expect(200);
    assert.deepEqual(own.body, p);

    // Any tier: a free human's agent trading from the human's wallet has P&L too, and no wallet of its own.
    const free = await claimedWithRealTrading();
    const settings = await api().get('/api/sdk/settings').set(asUser(free.token)).expect(200);
    await polymarketAdmin('POST', `/wallets/${settings.body.wallet_address}/fund`, { pusd: 100 });
    await polymarketAdmin('POST', `/wallets/${settings.body.wallet_address}/approve`);
    const empty = await api()
      .get(`/api/sdk/agent-wallet/${free.agent.agent_id}/pnl`)
      .set(asUser(free.token))
      .expect(200);
    assert.deepEqual(
      { ...empty.body, positions: empty.body.positions.length },
      {
        agent_id: free.agent.agent_id,
        wallet_address: null,
        realized_pnl: 0,
        unrealized_pnl: 0,
        total_pnl: 0,
        total_cost: 0,
        total_value: 0,
        positions: 0,
      },
    );
    const fm = await importedMarket(free.agent);
    const freeBuy = await polymarketTrade(free.agent, {
      market_id: fm.marketId,
      side: 'no',
      amount: 9,
    }).expect(200);
    assert.equal(freeBuy.body.success, true, JSON.stringify(freeBuy.body));
    const freePnl = await api()
      .get(`/api/sdk/agent-wallet/${free.agent.agent_id}/pnl`)
      .set(asAgent(free.agent))
      .expect(200);
    assert.ok(Math.abs(freePnl.body.total_cost - freeBuy.body.cost) < 1e-6, JSON.stringify(freePnl.body));
    // Someone else's agent is a 404.
    await api().get(`/api/sdk/agent-wallet/${agent.agent_id}/pnl`).set(asUser(free.token)).expect(404);
    await api().get(`/api/sdk/agent-wallet/${agent.agent_id}/pnl`).set(asAgent(free.agent)).expect(404);
  });
});
