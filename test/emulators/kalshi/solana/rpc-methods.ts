import { PublicKey } from '@solana/web3.js';
import { encodeBase58 } from '../base58.js';
import { DECIMALS, rentExempt, SYSTEM_PROGRAM, TOKEN_2022_PROGRAM, TOKEN_PROGRAM } from '../constants.js';
import type { KalshiState } from '../state.js';
import { FINALITY_BLOCKS, type TokenAccount } from './chain.js';
import { RpcError } from './rpc-error.js';
import { simulate, submitTransaction } from './submit.js';
import { DecodeError, decodeEncoded, parseTransaction } from './wire-transaction.js';

// The Solana JSON-RPC methods the stub answers, in Agave's shapes (kalshi.md §3.4, §3.5): the
// ones a DFlow trading service and web3.js 1.x call. Each handler takes the positional params and
// returns the result or throws an RpcError.

type Params = unknown[];
type Handler = (params: Params) => unknown;

const API_VERSION = '2.2.16';
/** Agave sends u64::MAX for rent-exempt accounts; this is the number a JSON parser in JS reads. */
const RENT_EXEMPT_EPOCH = 2 ** 64;

const invalidParams = (what: string) => new RpcError(-32602, `Invalid params: ${what}`);

function pubkey(v: unknown): string {
  if (typeof v !== 'string') throw invalidParams('invalid type: expected a string');
  try {
    return new PublicKey(v).toBase58();
  } catch {
    throw invalidParams('Invalid');
  }
}

const config = (params: Params, i: number): Record<string, unknown> => {
  const c = params[i];
  return typeof c === 'object' && c !== null && !Array.isArray(c) ? (c as Record<string, unknown>) : {};
};

const uiAmount = (amount: bigint) => {
  const whole = amount / 1_000_000n;
  const frac = (amount % 1_000_000n).toString().padStart(DECIMALS, '0').replace(/0+$/, '');
  const text = frac ? `${whole}.${frac}` : `${whole}`;
  return { amount: amount.toString(), decimals: DECIMALS, uiAmount: Number(text), uiAmountString: text };
};

/** The 165-byte SPL token account layout (mint, owner, amount, …, state = initialized). */
function tokenAccountBytes(a: TokenAccount): Buffer {
  const b = Buffer.alloc(a.program === TOKEN_2022_PROGRAM ? 170 : 165);
  new PublicKey(a.mint).toBuffer().copy(b, 0);
  new PublicKey(a.owner).toBuffer().copy(b, 32);
  b.writeBigUInt64LE(a.amount, 64);
  b[108] = 1;
  if (a.program === TOKEN_2022_PROGRAM) {
    b[165] = 2; // AccountType::Account, then the ImmutableOwner extension (type 7, length 0)
    b.writeUInt16LE(7, 166);
  }
  return b;
}

function tokenAccountInfo(a: TokenAccount, encoding: unknown) {
  const space = a.program === TOKEN_2022_PROGRAM ? 170 : 165;
  const data =
    encoding === 'jsonParsed'
      ? {
          program: a.program === TOKEN_PROGRAM ? 'spl-token' : 'spl-token-2022',
          parsed: {
            type: 'account',
            info: {
              isNative: false,
              mint: a.mint,
              owner: a.owner,
              state: 'initialized',
              tokenAmount: uiAmount(a.amount),
              ...(a.program === TOKEN_2022_PROGRAM ? { extensions: [{ extension: 'immutableOwner' }] } : {}),
            },
          },
          space,
        }
      : [tokenAccountBytes(a).toString('base64'), 'base64'];
  return {
    data,
    executable: false,
    lamports: Number(a.lamports),
    owner: a.program,
    rentEpoch: RENT_EXEMPT_EPOCH,
    space,
  };
}

export function rpcMethods(state: KalshiState): Record<string, Handler> {
  const { chain } = state;
  const context = () => ({ apiVersion: API_VERSION, slot: chain.slot });
  const withContext = (value: unknown) => ({ context: context(), value });

  const decodeTx = (params: Params, encodingDefault: string) => {
    const text = params[0];
    if (typeof text !== 'string') throw invalidParams('invalid type: expected a string');
    const encoding = String(config(params, 1).encoding ?? encodingDefault);
    if (encoding !== 'base58' && encoding !== 'base64')
      throw invalidParams(
        `unknown variant \`${encoding}\`, expected one of \`binary\`, \`base64\`, \`base58\`, \`json\`, \`jsonParsed\``,
      );
    try {
      return parseTransaction(decodeEncoded(text, encoding));
    } catch (err) {
      if (!(err instanceof DecodeError)) throw err;
      throw new RpcError(
        -32602,
        err.message.startsWith('invalid')
          ? err.message
          : `failed to deserialize solana_transaction::versioned::VersionedTransaction: ${err.message}`,
      );
    }
  };

  return {
    getHealth: () => 'ok',
    getVersion: () => ({ 'feature-set': 3_294_202_862, 'solana-core': API_VERSION }),
    getSlot: () => chain.slot,
    getBlockHeight: () => chain.height,
    getEpochInfo: () => ({
      absoluteSlot: chain.slot,
      blockHeight: chain.height,
      epoch: Math.floor(chain.slot / 432_000),
      slotIndex: chain.slot % 432_000,
      slotsInEpoch: 432_000,
      transactionCount: null,
    }),
    getLatestBlockhash: () => withContext(chain.latestBlockhash()),
    isBlockhashValid: (p) => {
      if (typeof p[0] !== 'string') throw invalidParams('invalid type: expected a string');
      return withContext(chain.blockhashValid(p[0]));
    },
    getMinimumBalanceForRentExemption: (p) => {
      const size = Number(p[0] ?? 0);
      if (!Number.isInteger(size) || size < 0) throw invalidParams('invalid type: expected usize');
      return Number(rentExempt(size));
    },
    getFeeForMessage: () => withContext(5_000),
    getBalance: (p) => withContext(Number(chain.balance(pubkey(p[0])))),
    getAccountInfo: (p) => {
      const address = pubkey(p[0]);
      const encoding = config(p, 1).encoding ?? 'base64';
      const token = chain.tokenAccounts.get(address);
      if (token) return withContext(tokenAccountInfo(token, encoding));
      if (!chain.lamports.has(address)) return withContext(null);
      return withContext({
        data: encoding === 'jsonParsed' ? ['', 'base64'] : ['', 'base64'],
        executable: false,
        lamports: Number(chain.balance(address)),
        owner: SYSTEM_PROGRAM,
        rentEpoch: RENT_EXEMPT_EPOCH,
        space: 0,
      });
    },
    getTokenAccountsByOwner: (p) => {
      const owner = pubkey(p[0]);
      const filter = config(p, 1);
      const hasMint = typeof filter.mint === 'string';
      const hasProgram = typeof filter.programId === 'string';
      if (hasMint === hasProgram)
        throw invalidParams('Invalid params: expected exactly one of `mint` or `programId`');
      if (hasProgram && filter.programId !== TOKEN_PROGRAM && filter.programId !== TOKEN_2022_PROGRAM)
        throw invalidParams('Invalid param: unrecognized Token program id');
      const encoding = config(p, 2).encoding ?? 'base64';
      const accounts = chain
        .accountsOf(owner)
        .filter((a) => (hasMint ? a.mint === filter.mint : a.program === filter.programId));
      return withContext(
        accounts.map((a) => ({ pubkey: a.address, account: tokenAccountInfo(a, encoding) })),
      );
    },
    getTokenAccountBalance: (p) => {
      const account = chain.tokenAccounts.get(pubkey(p[0]));
      if (!account) throw invalidParams('Invalid param: could not find account');
      return withContext(uiAmount(account.amount));
    },
    getSignatureStatuses: (p) => {
      const sigs = p[0];
      if (!Array.isArray(sigs)) throw invalidParams('invalid type: expected a sequence');
      if (sigs.length > 256) throw invalidParams('Too many inputs provided; max 256');
      return withContext(
        sigs.map((s) => {
          const r = typeof s === 'string' ? chain.landed.get(s) : undefined;
          if (!r) return null;
          const confirmations = chain.height - r.landedHeight;
          const finalized = confirmations >= FINALITY_BLOCKS;
          return {
            slot: r.landedHeight + chain.slot - chain.height,
            confirmations: finalized ? null : confirmations,
            err: r.err,
            status: r.err === null ? { Ok: null } : { Err: r.err },
            confirmationStatus: finalized ? 'finalized' : 'confirmed',
          };
        }),
      );
    },
    sendTransaction: (p) => {
      const tx = decodeTx(p, 'base58');
      const skipPreflight = config(p, 1).skipPreflight === true;
      return submitTransaction(state, tx, { skipPreflight, drop: false });
    },
    simulateTransaction: (p) => {
      const tx = decodeTx(p, 'base58');
      const { err, logs } = simulate(state, tx, config(p, 1).sigVerify === true);
      return withContext({
        accounts: null,
        err,
        innerInstructions: null,
        logs,
        replacementBlockhash: null,
        returnData: null,
        unitsConsumed: 0,
      });
    },
  };
}

/** The transaction id of a raw submission, for the `drop` fault (answered without landing). */
export function dropTransaction(state: KalshiState, params: Params): string {
  const text = params[0];
  const encoding = String(config(params, 1).encoding ?? 'base58');
  const tx = parseTransaction(decodeEncoded(String(text), encoding));
  const order = state.desk.byMessageBytes(tx.messageBytes);
  state.chain.unlanded.add(tx.id);
  if (order) state.desk.received(order, tx.id);
  return encodeBase58(tx.signatures[0]!);
}
