import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { ClobClient, OrderType, Side } from '@polymarket/clob-client-v2';
import { Wallet } from 'ethers';
import { createWalletClient, custom } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { testContext } from './context.js';
import { api, registerAgent, type RegisteredAgent } from './http.js';
import { asUser, claim, tokenFor } from './users.js';
import { newPolymarketEvent, polymarketAdmin } from './venue-emulators.js';

/** The agents and humans of the Polymarket tests, set up as a client would set them up. */

export const asAgent = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });

export interface Trader {
  agent: RegisteredAgent;
  token: string;
  wallet: Wallet;
  /** Polymarket's official client for this wallet, pointed at the emulator's CLOB. */
  clob: ClobClient;
}

/** The user id of the agent's human. */
export const ownerIdOf = async (agent: RegisteredAgent) =>
  (await testContext().deps.models.Agent.findById(agent.agent_id, { claimedBy: 1 }).lean())!.claimedBy!;

/** Sets a human's tier through the operator API. */
export const setTier = (userId: string, tier: 'free' | 'pro' | 'elite') =>
  api()
    .put(`/api/admin/users/${userId}/tier`)
    .set('Authorization', `Bearer ${testContext().operatorToken}`)
    .send({ tier })
    .expect(200);

/** A newly registered agent claimed by a new human. */
export async function claimedAgent() {
  const agent = await registerAgent();
  const token = tokenFor(`user-${randomUUID()}`);
  await claim(token, agent.claim_code).expect(200);
  return { agent, token };
}

/** A newly registered agent claimed by a new human who switched real trading on. */
export async function claimedWithRealTrading() {
  const claimed = await claimedAgent();
  await api()
    .patch('/api/sdk/settings')
    .set(asUser(claimed.token))
    .send({ sdk_real_trading_enabled: true })
    .expect(200);
  return claimed;
}

/** Links `wallet` to the agent's human through the signed challenge (replacing the managed wallet of the claim). */
export async function linkExternalWallet(agent: RegisteredAgent, wallet: Wallet): Promise<void> {
  const challenge = await api()
    .get(`/api/sdk/wallet/link/challenge?address=${wallet.address}`)
    .set(asAgent(agent))
    .expect(200);
  const linked = await api()
    .post('/api/sdk/wallet/link')
    .set(asAgent(agent))
    .send({
      address: wallet.address,
      signature: await wallet.signMessage(challenge.body.message),
      nonce: challenge.body.nonce,
      signature_type: 0,
      // The claim gave the human a managed wallet: an explicit link replaces it as the trading wallet.
      confirm_replace_managed: true,
    })
    .expect(200);
  assert.equal(linked.body.success, true, JSON.stringify(linked.body));
}

/**
 * What the client does once its wallet is linked: derives the EOA's CLOB credentials with
 * Polymarket's official client (against the emulated CLOB) and registers them with the service.
 */
export async function registerClobCredentials(agent: RegisteredAgent, wallet: Wallet) {
  const signer = createWalletClient({
    account: privateKeyToAccount(wallet.privateKey as `0x${string}`),
    // Signing needs no chain: a transport that refuses any RPC call.
    transport: custom({
      request: () => Promise.reject(new Error('no RPC in these tests')),
    }),
  });
  const host = testContext().polymarket.clobUrl;
  const creds = await new ClobClient({ host, chain: 137, signer }).createOrDeriveApiKey();
  await api()
    .post('/api/sdk/wallet/credentials')
    .set(asAgent(agent))
    .send({ api_key: creds.key, api_secret: creds.secret, api_passphrase: creds.passphrase })
    .expect(200);
  return { host, signer, creds };
}

/**
 * A claimed agent with real trading on, an external wallet linked, funded with pUSD and with CLOB
 * credentials registered. `approved` (the default) also sets every approval through the emulator's
 * admin shortcut; without it the wallet has none, as a new wallet has none.
 */
export async function externalTrader({ approved = true } = {}): Promise<Trader> {
  const { agent, token } = await claimedWithRealTrading();
  const wallet = Wallet.createRandom() as unknown as Wallet;
  await linkExternalWallet(agent, wallet);
  await polymarketAdmin('POST', `/wallets/${wallet.address}/fund`, { pusd: 1000 });
  if (approved) await polymarketAdmin('POST', `/wallets/${wallet.address}/approve`);
  const { host, signer, creds } = await registerClobCredentials(agent, wallet);
  return { agent, token, wallet, clob: new ClobClient({ host, chain: 137, signer, creds }) };
}

/** A market imported from the emulator: its service id and the two outcome tokens. */
export async function importedMarket(agent: RegisteredAgent, prices = [0.55, 0.45]) {
  const event = await newPolymarketEvent(['Yes', 'No'], prices);
  const res = await api()
    .post('/api/sdk/markets/import')
    .set(asAgent(agent))
    .send({ polymarket_url: `https://polymarket.com/market/${event.markets[0]!.slug}` })
    .expect(200);
  const [yes, no] = event.markets[0]!.token_ids;
  return {
    marketId: res.body.market_id as string,
    conditionId: event.markets[0]!.condition_id,
    yes: yes!,
    no: no!,
  };
}

/** `POST /api/sdk/trade` on Polymarket. */
export const polymarketTrade = (agent: RegisteredAgent, body: Record<string, unknown>) =>
  api()
    .post('/api/sdk/trade')
    .set(asAgent(agent))
    .send({ venue: 'polymarket', ...body });

/**
 * A FAK buy of `amount` pUSD of YES, signed by the trader's official client at a 0.6 limit and sent
 * through `POST /api/sdk/trade` (the answer, unchecked: callers assert what they expect).
 */
export async function signedBuy(t: Trader, m: { marketId: string; yes: string }, amount = 10) {
  return polymarketTrade(t.agent, {
    market_id: m.marketId,
    side: 'yes',
    amount,
    order_type: OrderType.FAK,
    signed_order: await t.clob.createMarketOrder({ tokenID: m.yes, amount, side: Side.BUY, price: 0.6 }),
  }).expect(200);
}

/**
 * A GTC sell of `size` YES shares at `price`, signed by the trader's official client and sent through
 * `POST /api/sdk/trade` (the answer, unchecked): it rests above the bid, or matches at once below it.
 */
export async function signedSell(
  t: Trader,
  m: { marketId: string; yes: string },
  size: number,
  price: number,
) {
  return polymarketTrade(t.agent, {
    market_id: m.marketId,
    side: 'yes',
    action: 'sell',
    shares: size,
    order_type: 'GTC',
    signed_order: await t.clob.createOrder({ tokenID: m.yes, price, size, side: Side.SELL }),
  });
}

/** A claimed agent trading from its human's managed wallet (created at the claim), funded and approved. */
export async function managedTrader() {
  const { agent, token } = await claimedWithRealTrading();
  const settings = await api().get('/api/sdk/settings').set(asUser(token)).expect(200);
  const address = settings.body.wallet_address as string;
  await polymarketAdmin('POST', `/wallets/${address}/fund`, { pusd: 500 });
  await polymarketAdmin('POST', `/wallets/${address}/approve`);
  return { agent, token, address };
}

/** A GTC buy of 10 pUSD of YES at 0.2 (50 shares), below the book: it rests (the service signs it). */
export const restingBuy = (agent: RegisteredAgent, m: { marketId: string }) =>
  polymarketTrade(agent, { market_id: m.marketId, side: 'yes', amount: 10, price: 0.2, order_type: 'GTC' });
