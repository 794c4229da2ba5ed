import assert from 'node:assert/strict';
import type { Wallet } from 'ethers';
import { api } from './http.js';

/** What a client does on Polygon through the service (client-contract §8.3): reads via the RPC proxy, sends via the relay. */

type Auth = Record<string, string>;

/** `POST /api/rpc/polygon`: the authenticated JSON-RPC proxy. */
export const polygonProxy = (auth: Auth, method: string, params: unknown[] = []) =>
  api().post('/api/rpc/polygon').set(auth).send({ jsonrpc: '2.0', method, params, id: 1 });

/** The proxy's `result` for a call that must succeed. */
export async function polygonResult(auth: Auth, method: string, params: unknown[] = []): Promise<unknown> {
  const res = await polygonProxy(auth, method, params);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(res.body.error, undefined, JSON.stringify(res.body));
  return res.body.result;
}

/**
 * Signs an unsigned transaction of the service (`to`, `data`, `chainId`) as the official client
 * does, reading only what it reads through the proxy: the pending nonce, `eth_gasPrice` and
 * `eth_estimateGas` (× 1.3 headroom) — a legacy (type 0, EIP-155) transaction.
 */
export async function signAsClient(
  auth: Auth,
  wallet: Wallet,
  tx: { to: string; data: string; chainId: number },
): Promise<string> {
  const nonce = Number(await polygonResult(auth, 'eth_getTransactionCount', [wallet.address, 'pending']));
  const gasPrice = BigInt((await polygonResult(auth, 'eth_gasPrice')) as string);
  const gas = BigInt(
    (await polygonResult(auth, 'eth_estimateGas', [
      { from: wallet.address, to: tx.to, data: tx.data },
    ])) as string,
  );
  return wallet.signTransaction({
    type: 0,
    chainId: tx.chainId,
    to: tx.to,
    data: tx.data,
    value: 0,
    nonce,
    gasPrice,
    gasLimit: (gas * 13n) / 10n,
  });
}

/** `POST /api/sdk/wallet/broadcast-tx`: the relay of client-signed transactions. */
export const relayTx = (auth: Auth, signedTx: string) =>
  api().post('/api/sdk/wallet/broadcast-tx').set(auth).send({ signed_tx: signedTx });
