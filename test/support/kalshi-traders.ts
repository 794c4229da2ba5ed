import { createPrivateKey, sign } from 'node:crypto';
import { Keypair, VersionedTransaction } from '@solana/web3.js';
import { testContext } from './context.js';
import type { RegisteredAgent } from './http.js';
import { api } from './http.js';
import { asAgent, claimedWithRealTrading } from './polymarket-traders.js';
import { kalshiAdmin, newKalshiEvent } from './venue-emulators.js';

/** The agents, wallets and markets of the Kalshi trading tests, set up as the official client does. */

export interface KalshiTrader {
  agent: RegisteredAgent;
  token: string;
  /** The agent's Solana wallet (a web3.js Keypair), registered with bot_solana_wallet. */
  wallet: Keypair;
}

/** ed25519 signature of `message` by `key` (Node's crypto over the Keypair's seed). */
export function ed25519Sign(key: Keypair, message: Uint8Array): Uint8Array {
  const pkcs8 = Buffer.concat([
    Buffer.from('302e020100300506032b657004220420', 'hex'),
    Buffer.from(key.secretKey.subarray(0, 32)),
  ]);
  return new Uint8Array(sign(null, message, createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' })));
}

/**
 * A claimed agent with real trading on and a new web3.js wallet registered the client's way
 * (PATCH /api/sdk/user/settings {"bot_solana_wallet"}); by default KYC-verified and funded on the emulator.
 */
export async function kalshiTrader({ kyc = true, fund = true } = {}): Promise<KalshiTrader> {
  const { agent, token } = await claimedWithRealTrading();
  const wallet = Keypair.generate();
  const address = wallet.publicKey.toBase58();
  await api()
    .patch('/api/sdk/user/settings')
    .set(asAgent(agent))
    .send({ bot_solana_wallet: address })
    .expect(200);
  if (kyc) await kalshiAdmin('POST', `/kyc/${address}`);
  if (fund) await kalshiAdmin('POST', `/wallets/${address}/fund`, { usdc: 1000, sol: 1 });
  return { agent, token, wallet };
}

/** A fresh Kalshi market on the emulator, imported through the service: its market_id and ticker. */
export async function importedKalshiMarket(agent: RegisteredAgent, yes = 0.4) {
  const event = await newKalshiEvent([{ yes }]);
  const ticker = event.markets[0]!.ticker;
  const imported = await api()
    .post('/api/sdk/markets/import/kalshi')
    .set(asAgent(agent))
    .send({ kalshi_url: ticker })
    .expect(200);
  return { marketId: imported.body.market_id as string, ticker };
}

/** What the official client sends to quote (client-contract §4.3 step 2). */
export const quote = (t: KalshiTrader, body: Record<string, unknown>) =>
  api()
    .post('/api/sdk/trade/kalshi/quote')
    .set(asAgent(t.agent))
    .send({ amount: 0, shares: 0, action: 'buy', wallet_address: t.wallet.publicKey.toBase58(), ...body });

/** Signs a quote's transaction as the client does: deserialize, sign with the wallet, serialize, base64. */
export function signQuoted(transaction: string, key: Keypair): string {
  const tx = VersionedTransaction.deserialize(Buffer.from(transaction, 'base64'));
  tx.sign([key]);
  return Buffer.from(tx.serialize()).toString('base64');
}

/** What the official client sends to submit (client-contract §4.3 step 4). */
export const submit = (t: KalshiTrader, body: Record<string, unknown>) =>
  api()
    .post('/api/sdk/trade/kalshi/submit')
    .set(asAgent(t.agent))
    .send({ reasoning: null, source: null, ...body });

/** The emulator's orders of a wallet that reached the chain (a signature was seen). */
export async function sentOrders(address: string) {
  const orders = await kalshiAdmin<{ user: string; signature: string | null; status: string }[]>(
    'GET',
    '/orders',
  );
  return orders.filter((o) => o.user === address && o.signature !== null);
}

/** Puts the emulator's settings back as a test found them. */
export async function withKalshiSettings<T>(
  settings: Record<string, unknown>,
  run: () => Promise<T>,
): Promise<T> {
  const before = await kalshiAdmin<Record<string, unknown>>('GET', '/settings');
  await kalshiAdmin('POST', '/settings', settings);
  try {
    return await run();
  } finally {
    await kalshiAdmin('POST', '/settings', before);
  }
}

/** The agent's Kalshi position row, if any. */
export const kalshiPosition = (agentId: string, marketId: string) =>
  testContext().deps.models.Position.findOne({ agentId, marketId, venue: 'kalshi' }).lean();

/** The wallet's USDC on the emulated chain, in dollars. */
export async function walletUsdc(address: string): Promise<number> {
  const w = await kalshiAdmin<{ token_accounts: { mint: string; amount: string }[] }>(
    'GET',
    `/wallets/${address}`,
  );
  const usdc = w.token_accounts.find((a) => a.mint === 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v');
  return Number(usdc?.amount ?? 0) / 1e6;
}
