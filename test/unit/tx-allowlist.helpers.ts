import { Transaction, Wallet, decodeRlp, encodeRlp, toBeHex, type TransactionLike } from 'ethers';

/**
 * Shared by the allow-list's table test and property test: the keys, and the helpers that sign a
 * call or tamper with an already-signed transaction's bytes.
 */

// Hardhat keys #0 and #1 (public; never fund them). #0 is "the linked wallet" throughout.
export const LINKED = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
export const STRANGER = new Wallet('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d');

export const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export type TxType = 0 | 1 | 2;

export interface CallSpec {
  to: string | null;
  data: string;
  value?: bigint;
  chainId?: bigint | null;
  type?: TxType;
  nonce?: number;
  signer?: Wallet;
}

/** Gas fields of the reference vector (polymarket.md §8.4): 200/30 gwei, gas 120000. */
export function request(c: CallSpec): TransactionLike<string> {
  const type = c.type ?? 2;
  const base: TransactionLike<string> = {
    type,
    to: c.to,
    data: c.data,
    value: c.value ?? 0n,
    nonce: c.nonce ?? 7,
    gasLimit: 120_000n,
    ...(c.chainId === null ? {} : { chainId: c.chainId ?? 137n }),
  };
  return type === 2
    ? { ...base, maxFeePerGas: 200_000_000_000n, maxPriorityFeePerGas: 30_000_000_000n }
    : { ...base, gasPrice: 30_000_000_000n, ...(type === 1 ? { accessList: [] } : {}) };
}

export const sign = (c: CallSpec) => (c.signer ?? LINKED).signTransaction(request(c));

const rlpUint = (x: bigint) => (x === 0n ? '0x' : toBeHex(x));

/**
 * Re-encodes a signed legacy or EIP-1559 transaction with its signature changed by `edit`,
 * keeping every other byte: how a tampered signature arrives at the relay.
 */
export function editSignature(
  raw: string,
  edit: (sig: { r: bigint; s: bigint; yParity: number }) => { r: bigint; s: bigint; yParity: number },
): string {
  const tx = Transaction.from(raw);
  const sig = tx.signature!;
  const next = edit({ r: BigInt(sig.r), s: BigInt(sig._s), yParity: sig.yParity });
  if (tx.type === 2) {
    const fields = decodeRlp(`0x${raw.slice(4)}`) as string[];
    const out = [...fields.slice(0, 9), rlpUint(BigInt(next.yParity)), rlpUint(next.r), rlpUint(next.s)];
    return `0x02${encodeRlp(out).slice(2)}`;
  }
  const fields = decodeRlp(raw) as string[];
  const v = tx.chainId === 0n ? 27n + BigInt(next.yParity) : tx.chainId * 2n + 35n + BigInt(next.yParity);
  return encodeRlp([...fields.slice(0, 6), rlpUint(v), rlpUint(next.r), rlpUint(next.s)]);
}

export const word = (hex: string) => hex.replace(/^0x/, '').toLowerCase().padStart(64, '0');
