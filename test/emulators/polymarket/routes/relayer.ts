import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { Router, type Request } from 'express';
import { getAddress, isAddress, isHexString, zeroPadValue } from 'ethers';
import { DEPOSIT_WALLET_FACTORY } from '../../polygon/abi.js';
import type { PolygonChain } from '../../polygon/chain-state.js';
import { sendAsOperator } from '../../polygon/operator-tx.js';
import { CONTRACTS } from '../contracts.js';
import { depositWalletOf, RELAYER_OPERATOR, type Batch, type BatchCall } from '../deposit-wallets.js';
import type { PolymarketState } from '../state.js';
import { HttpError, jsonRoute } from './json-route.js';

// Polymarket's relayer (relayer-v2, reference §8.4) for deposit wallets: `WALLET-CREATE` deploys
// the caller's wallet from the factory, `WALLET` executes a `Batch` of calls the wallet's owner
// signed (EIP-712, domain DepositWallet/1/137/<wallet>) from the wallet, atomically. Submissions
// need builder credentials (the `POLY_BUILDER_*` HMAC headers, the same HMAC as CLOB L2); reads
// are public. A submission the relayer accepts becomes a transaction of its operator on the
// emulated chain (../../polygon): the factory's `deploy` or `proxy` (../../polygon/abi.ts), signed,
// paid for and mined by the chain's rules (instant, interval or manual mining), so its
// `transactionHash` is a real hash whose receipt has the inner calls' logs. The answer is
// `STATE_NEW`; `GET /transaction` then shows where the chain has it: `STATE_NEW` while pending,
// `STATE_CONFIRMED` once mined with status 1, `STATE_FAILED` (with the revert reason) once mined
// reverted. Mounted at `<base>/relayer`.

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

/** What the relayer keeps of a submission; its state is read from the chain. */
interface RelayerTx {
  transactionID: string;
  transactionHash: string;
  from: string;
  to: string;
  proxyAddress: string;
  nonce: string;
  signature: string;
  type: 'WALLET' | 'WALLET-CREATE';
  createdAt: string;
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

export function relayerRouter(state: PolymarketState, chain: PolygonChain): Router {
  const r = Router();
  const txs = new Map<string, RelayerTx>();
  const { depositWallets } = state;

  /** Sends `data` to the factory as a transaction of the operator (operator-tx.ts); returns its hash. */
  const send = (data: string): string =>
    sendAsOperator(state, chain, RELAYER_OPERATOR, CONTRACTS.depositWalletFactory, data);

  const record = (tx: Omit<RelayerTx, 'transactionID' | 'createdAt'>) => {
    const row: RelayerTx = {
      ...tx,
      transactionID: randomUUID(),
      createdAt: new Date(state.now()).toISOString(),
    };
    txs.set(row.transactionID, row);
    return row;
  };

  /** A submission as `GET /transaction` shows it: its state is where the chain has its transaction. */
  const view = (row: RelayerTx) => {
    const onChain = chain.get(row.transactionHash);
    const receipt = onChain?.receipt;
    const at = receipt && chain.block(onChain.blockNumber!)?.timestampMs;
    const now: RelayerState = !onChain
      ? 'STATE_FAILED'
      : !receipt
        ? 'STATE_NEW'
        : receipt.status === 1
          ? 'STATE_CONFIRMED'
          : 'STATE_FAILED';
    const errorMsg = !onChain
      ? 'transaction dropped from the chain'
      : receipt?.status === 0
        ? (receipt.revertReason ?? 'execution reverted')
        : undefined;
    return {
      ...row,
      state: now,
      ...(errorMsg ? { errorMsg } : {}),
      updatedAt: at === undefined ? row.createdAt : new Date(at).toISOString(),
    };
  };

  const create = (body: Record<string, unknown>) => {
    const from = addressOf(body.from, 'from');
    const data = DEPOSIT_WALLET_FACTORY.encodeFunctionData('deploy', [[from], [zeroPadValue(from, 32)]]);
    return record({
      transactionHash: send(data),
      from,
      to: CONTRACTS.depositWalletFactory,
      proxyAddress: depositWalletOf(from),
      nonce: '0',
      signature: '',
      type: 'WALLET-CREATE',
    });
  };

  /**
   * Checks a WALLET batch as the relayer does before sending it (400 with the reason), then sends
   * it through the factory's `proxy`; the wallet runs it all or nothing when it is mined.
   */
  const execute = (body: Record<string, unknown>) => {
    const from = addressOf(body.from, 'from');
    const params = (body.depositWalletParams ?? {}) as Record<string, unknown>;
    const batch: Batch = {
      wallet: addressOf(params.depositWallet, 'depositWallet'),
      nonce: uintOf(body.nonce, 'nonce'),
      deadline: uintOf(params.deadline, 'deadline'),
      calls: callsOf(params.calls),
    };
    if (typeof body.signature !== 'string' || !isHexString(body.signature, 65))
      throw bad('invalid signature');
    const owner = depositWallets.ownerOf(batch.wallet);
    if (!owner) throw bad(`deposit wallet ${batch.wallet} is not deployed`);
    if (owner !== from) throw bad('from is not the owner of the deposit wallet');
    const nowS = BigInt(Math.floor(state.now() / 1000));
    if (batch.deadline > nowS + BigInt(MAX_DEADLINE_S))
      throw bad(`deadline too far: at most ${MAX_DEADLINE_S}s ahead`);
    const refusal = depositWallets.batchRefusal(batch, body.signature, nowS);
    if (refusal) throw bad(refusal);
    const data = DEPOSIT_WALLET_FACTORY.encodeFunctionData('proxy', [
      [[batch.wallet, batch.nonce, batch.deadline, batch.calls.map((c) => [c.target, c.value, c.data])]],
      [body.signature],
    ]);
    return record({
      transactionHash: send(data),
      from,
      to: CONTRACTS.depositWalletFactory,
      proxyAddress: batch.wallet,
      nonce: batch.nonce.toString(),
      signature: body.signature,
      type: 'WALLET',
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

  // Reads see the blocks the emulator clock made due, as the chain's own reads do.
  r.use((_req, _res, next) => {
    chain.sync();
    next();
  });

  r.get(
    '/transaction',
    jsonRoute((req) => {
      const row = txs.get(String(req.query.id ?? ''));
      if (!row) throw new HttpError(404, 'transaction not found');
      return [view(row)];
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
