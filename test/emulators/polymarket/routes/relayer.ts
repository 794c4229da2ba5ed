import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { Router, type Request } from 'express';
import { getAddress, isAddress, isHexString, keccak256, recoverAddress, toUtf8Bytes } from 'ethers';
import { planCall } from '../../polygon/tx-effects.js';
import { CONTRACTS } from '../contracts.js';
import { batchDigest, depositWalletOf, type BatchCall } from '../deposit-wallets.js';
import type { PolymarketState } from '../state.js';
import { HttpError, jsonRoute } from './json-route.js';

// Polymarket's relayer (relayer-v2, reference §8.4) for deposit wallets: `WALLET-CREATE` deploys
// the caller's wallet from the factory, `WALLET` executes a `Batch` of calls the wallet's owner
// signed (EIP-712, domain DepositWallet/1/137/<wallet>) from the wallet, atomically, against the
// shared ledger. Submissions need builder credentials (the `POLY_BUILDER_*` HMAC headers, the same
// HMAC as CLOB L2); reads are public. A submission answers `STATE_NEW`; `GET /transaction` then
// shows the final state (`STATE_CONFIRMED`, or `STATE_FAILED` with the revert reason): the batch
// is executed at once, so a client polling as it would against the real relayer sees it settle on
// its first poll. Mounted at `<base>/relayer`.

/** The builder API key the emulated relayer accepts (a service under test is configured with it). */
export const RELAYER_BUILDER_CREDENTIALS = {
  key: '0b7f3c52-6c7e-4f64-9a3f-5f2f6b0e1d11',
  // base64 of 32 fixed bytes: HMAC keys are base64 like the CLOB's L2 secrets.
  secret: Buffer.from('emulated-relayer-builder-secret!').toString('base64'),
  passphrase: 'emulated-relayer-passphrase',
} as const;

/** How far ahead a batch deadline may be (the relayer's maximum, §8.4). */
const MAX_DEADLINE_S = 300;

type RelayerState = 'STATE_NEW' | 'STATE_CONFIRMED' | 'STATE_FAILED';

interface RelayerTx {
  transactionID: string;
  transactionHash: string;
  from: string;
  to: string;
  proxyAddress: string;
  nonce: string;
  signature: string;
  state: RelayerState;
  type: 'WALLET' | 'WALLET-CREATE';
  errorMsg?: string;
  createdAt: string;
  updatedAt: string;
}

function builderSignature(secret: string, message: string): string {
  const key = Buffer.from(secret.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return createHmac('sha256', key).update(message).digest('base64').replace(/\+/g, '-').replace(/\//g, '_');
}

function checkBuilderAuth(req: Request): void {
  const h = (name: string) => req.header(name) ?? '';
  const creds = RELAYER_BUILDER_CREDENTIALS;
  const raw = (req as { rawBody?: string }).rawBody ?? '';
  const want = builderSignature(creds.secret, `${h('POLY_BUILDER_TIMESTAMP')}${req.method}${req.path}${raw}`);
  const got = h('POLY_BUILDER_SIGNATURE');
  const same = got.length === want.length && timingSafeEqual(Buffer.from(got), Buffer.from(want));
  if (h('POLY_BUILDER_API_KEY') !== creds.key || h('POLY_BUILDER_PASSPHRASE') !== creds.passphrase || !same)
    throw new HttpError(401, 'invalid authorization');
}

const bad = (message: string) => new HttpError(400, message);

function addressOf(v: unknown, what: string): string {
  if (typeof v !== 'string' || !isAddress(v)) throw bad(`invalid ${what}`);
  return getAddress(v.toLowerCase());
}

function uintOf(v: unknown, what: string): bigint {
  if (typeof v === 'string' && /^\d{1,78}$/.test(v)) return BigInt(v);
  if (typeof v === 'number' && Number.isSafeInteger(v) && v >= 0) return BigInt(v);
  throw bad(`invalid ${what}`);
}

function callsOf(v: unknown): BatchCall[] {
  if (!Array.isArray(v) || v.length === 0) throw bad('invalid calls');
  return v.map((c: unknown, i) => {
    const call = (c ?? {}) as Record<string, unknown>;
    if (typeof call.data !== 'string' || !isHexString(call.data)) throw bad(`invalid calls[${i}].data`);
    return {
      target: addressOf(call.target, `calls[${i}].target`),
      value: uintOf(call.value ?? '0', `calls[${i}].value`),
      data: call.data.toLowerCase(),
    };
  });
}

export function relayerRouter(state: PolymarketState): Router {
  const r = Router();
  const txs = new Map<string, RelayerTx>();
  const { depositWallets, ledger } = state;

  const record = (tx: Omit<RelayerTx, 'transactionID' | 'transactionHash' | 'createdAt' | 'updatedAt'>) => {
    const id = randomUUID();
    const at = new Date(state.now()).toISOString();
    const row: RelayerTx = {
      ...tx,
      transactionID: id,
      transactionHash: keccak256(toUtf8Bytes(`emulated relayer transaction ${id}`)),
      createdAt: at,
      updatedAt: at,
    };
    txs.set(id, row);
    return row;
  };

  const create = (body: Record<string, unknown>) => {
    const from = addressOf(body.from, 'from');
    const { address } = depositWallets.deploy(from);
    return record({
      from,
      to: CONTRACTS.depositWalletFactory,
      proxyAddress: address,
      nonce: '0',
      signature: '',
      state: 'STATE_CONFIRMED',
      type: 'WALLET-CREATE',
    });
  };

  /** Verifies and executes a WALLET batch; a revert in any call undoes the whole batch. */
  const execute = (body: Record<string, unknown>) => {
    const from = addressOf(body.from, 'from');
    const params = (body.depositWalletParams ?? {}) as Record<string, unknown>;
    const wallet = addressOf(params.depositWallet, 'depositWallet');
    const nonce = uintOf(body.nonce, 'nonce');
    const deadline = uintOf(params.deadline, 'deadline');
    const calls = callsOf(params.calls);
    if (typeof body.signature !== 'string' || !isHexString(body.signature, 65))
      throw bad('invalid signature');
    const owner = depositWallets.ownerOf(wallet);
    if (!owner) throw bad(`deposit wallet ${wallet} is not deployed`);
    if (owner !== from) throw bad('from is not the owner of the deposit wallet');
    const nowS = BigInt(Math.floor(state.now() / 1000));
    if (deadline < nowS) throw bad('deadline expired');
    if (deadline > nowS + BigInt(MAX_DEADLINE_S))
      throw bad(`deadline too far: at most ${MAX_DEADLINE_S}s ahead`);
    if (nonce !== depositWallets.nonceOf(wallet))
      throw bad(`invalid nonce: expected ${depositWallets.nonceOf(wallet)}, got ${nonce}`);
    let signer: string;
    try {
      signer = recoverAddress(batchDigest(wallet, nonce, deadline, calls), body.signature);
    } catch {
      throw bad('invalid signature');
    }
    if (signer !== owner) throw bad('invalid signature');

    const before = ledger.snapshot();
    let failure: string | undefined;
    for (const [i, c] of calls.entries()) {
      const plan = planCall(state, { from: wallet, to: c.target, data: c.data, value: c.value });
      if (!plan.ok) {
        failure = `call ${i} reverted${plan.reason ? `: ${plan.reason}` : ''}`;
        break;
      }
      plan.apply();
    }
    if (failure) ledger.restore(before);
    else depositWallets.bumpNonce(wallet);
    return record({
      from,
      to: CONTRACTS.depositWalletFactory,
      proxyAddress: wallet,
      nonce: nonce.toString(),
      signature: body.signature,
      state: failure ? 'STATE_FAILED' : 'STATE_CONFIRMED',
      type: 'WALLET',
      ...(failure ? { errorMsg: failure } : {}),
    });
  };

  r.post(
    '/submit',
    jsonRoute((req) => {
      checkBuilderAuth(req);
      const body = (req.body ?? {}) as Record<string, unknown>;
      if (
        typeof body.to === 'string' &&
        body.to.toLowerCase() !== CONTRACTS.depositWalletFactory.toLowerCase()
      )
        throw bad('to must be the deposit wallet factory');
      const row =
        body.type === 'WALLET-CREATE'
          ? create(body)
          : body.type === 'WALLET'
            ? execute(body)
            : (() => {
                throw bad('unsupported transaction type');
              })();
      return { transactionID: row.transactionID, transactionHash: row.transactionHash, state: 'STATE_NEW' };
    }),
  );

  r.get(
    '/transaction',
    jsonRoute((req) => {
      const row = txs.get(String(req.query.id ?? ''));
      if (!row) throw new HttpError(404, 'transaction not found');
      return [row];
    }),
  );

  // The next batch nonce of the owner's deposit wallet (`type=WALLET`).
  r.get(
    '/nonce',
    jsonRoute((req) => {
      const owner = addressOf(req.query.address, 'address');
      return { nonce: depositWallets.nonceOf(depositWalletOf(owner)).toString() };
    }),
  );

  r.get(
    '/deployed',
    jsonRoute((req) => ({
      deployed: depositWallets.ownerOf(addressOf(req.query.address, 'address')) !== undefined,
    })),
  );

  return r;
}
