import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import type { Wallet } from 'ethers';
import { CONTRACTS, RELAYER_BUILDER_CREDENTIALS, depositWalletOf } from '../emulators/polymarket/index.js';
import { until } from './until.js';

// A client of Polymarket's relayer for deposit wallets, written as the official relayer clients
// call it (builder-relayer-client `executeDepositWalletBatch`, polynode's Python port) rather than
// from the emulator's code: builder HMAC headers on `POST /submit`, the batch nonce from
// `GET /nonce?type=WALLET`, the `Batch` signed under the wallet's EIP-712 domain, then
// `GET /transaction?id=` polled until the submission is final.

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export const BATCH_TYPES = {
  Call: [
    { name: 'target', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
  ],
  Batch: [
    { name: 'wallet', type: 'address' },
    { name: 'nonce', type: 'uint256' },
    { name: 'deadline', type: 'uint256' },
    { name: 'calls', type: 'Call[]' },
  ],
};

export interface RelayerCall {
  target: string;
  value: string;
  data: string;
}

/** The builder headers: url-safe base64 HMAC-SHA256 of timestamp + method + path + body. */
function builderHeaders(method: string, path: string, body: string): Record<string, string> {
  const creds = RELAYER_BUILDER_CREDENTIALS;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', Buffer.from(creds.secret, 'base64'))
    .update(`${timestamp}${method}${path}${body}`)
    .digest('base64')
    .replace(/\+/g, '-')
    .replace(/\//g, '_');
  return {
    POLY_BUILDER_API_KEY: creds.key,
    POLY_BUILDER_PASSPHRASE: creds.passphrase,
    POLY_BUILDER_TIMESTAMP: timestamp,
    POLY_BUILDER_SIGNATURE: signature,
  };
}

/** A relayer request at `relayerUrl`; a POST is authenticated with the builder headers. */
export async function relayer(relayerUrl: string, method: 'GET' | 'POST', path: string, body?: unknown) {
  const raw = body === undefined ? '' : JSON.stringify(body);
  const headers =
    method === 'POST' ? { 'content-type': 'application/json', ...builderHeaders(method, path, raw) } : {};
  const res = await fetch(`${relayerUrl}${path}`, { method, headers, body: raw || undefined });
  return { status: res.status, body: (await res.json()) as Json };
}

/** The deposit wallet's next batch nonce, asked by its owner's address. */
export const relayerNonce = async (relayerUrl: string, owner: string) =>
  (await relayer(relayerUrl, 'GET', `/nonce?address=${owner}&type=WALLET`)).body.nonce as string;

/**
 * `WALLET`: a batch of `calls` for `owner`'s deposit wallet at its nonce, with a deadline 240 s
 * after `nowMs` (the venue's clock), signed by `signer` (the owner unless a test forges it).
 * The relayer's answer, with what was signed.
 */
export async function submitBatch(
  relayerUrl: string,
  owner: Wallet,
  calls: RelayerCall[],
  { nowMs, signer = owner }: { nowMs: number; signer?: Wallet },
) {
  const wallet = depositWalletOf(owner.address);
  const nonce = await relayerNonce(relayerUrl, owner.address);
  const deadline = String(Math.floor(nowMs / 1000) + 240);
  const signature = await signer.signTypedData(
    { name: 'DepositWallet', version: '1', chainId: 137, verifyingContract: wallet },
    BATCH_TYPES,
    { wallet, nonce, deadline, calls },
  );
  const res = await relayer(relayerUrl, 'POST', '/submit', {
    type: 'WALLET',
    from: owner.address,
    to: CONTRACTS.depositWalletFactory,
    nonce,
    signature,
    depositWalletParams: { depositWallet: wallet, deadline, calls },
  });
  return { ...res, signature, nonce, deadline };
}

/** The relayer's row of a submission (`GET /transaction?id=`). */
export async function relayedTransaction(relayerUrl: string, id: string): Promise<Json> {
  const res = await relayer(relayerUrl, 'GET', `/transaction?id=${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body[0];
}

/** Polls a submission until it is mined or failed, as the official clients wait for it; the last row. */
export const waitForRelayed = (relayerUrl: string, id: string) =>
  until(
    () => relayedTransaction(relayerUrl, id),
    (row) => ['STATE_MINED', 'STATE_CONFIRMED', 'STATE_FAILED'].includes(row.state),
  );
