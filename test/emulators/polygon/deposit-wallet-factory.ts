import { getAddress, zeroPadValue, type Result } from 'ethers';
import { RELAYER_OPERATOR, type Batch } from '../polymarket/deposit-wallets.js';
import type { PolymarketState } from '../polymarket/state.js';
import { DEPOSIT_WALLET_FACTORY } from './abi.js';
import type { Call, EventLog, Outcome } from './tx-effects.js';

// The deposit wallet factory as the chain runs the relayer's transactions to it (reference §8.4:
// WALLET-CREATE and WALLET submissions name the factory as `to`). `deploy` creates wallets; `proxy`
// has each wallet check its owner-signed `Batch` (deposit-wallets.ts `batchRefusal`) and make its
// calls, in order and all or nothing, through the same call planner as any transaction, with the
// wallet as their caller: the receipt holds the logs of the contracts those calls reach (a
// redemption's PayoutRedemption and Wrapped, an approval's Approval), each with the address of the
// contract that emitted it. Both functions are `onlyOperator` (the relayer's signer); anyone else
// reverts, as the deployed factory reverts `OnlyOperator()` (a custom error, without a reason
// string here). Events of the factory and of the wallets themselves are not logged: the reference
// gives neither their ABI nor their topics.

/** Gas of the factory's own work: a clone deployed, a batch's signature and nonce checked. */
const GAS = { revert: 30_000n, call: 25_000n, deploy: 150_000n, batch: 40_000n };

/** One run of a factory function against the state: its gas and logs, or why it reverted. */
type Run = { ok: true; gas: bigint; logs: EventLog[] } | { ok: false; reason: string | undefined };

const refused = (reason: string | undefined): Run => ({ ok: false, reason });

/** Runs `fn` and undoes whatever it wrote (the ledger and the deposit wallets), whatever its outcome. */
function dryRun(state: PolymarketState, fn: () => Run): Run {
  const ledger = state.ledger.snapshot();
  const wallets = state.depositWallets.snapshot();
  try {
    return fn();
  } finally {
    state.ledger.restore(ledger);
    state.depositWallets.restore(wallets);
  }
}

/** `deploy(_owners, _ids)`: each owner's wallet, at its CREATE2 address (a deployed one is left as it is). */
function deploy(state: PolymarketState, owners: string[], ids: string[]): Run {
  if (owners.length !== ids.length) return refused('owners and ids length mismatch');
  // The emulator derives a wallet's address from its owner alone (walletId = the padded EOA).
  if (owners.some((o, i) => ids[i]!.toLowerCase() !== zeroPadValue(o, 32).toLowerCase()))
    return refused('walletId is not the owner left-padded to 32 bytes');
  for (const owner of owners) state.depositWallets.deploy(owner);
  return { ok: true, gas: GAS.call + GAS.deploy * BigInt(owners.length), logs: [] };
}

/** A `Batch` tuple as the ABI decodes it. */
const batchOf = (b: Result): Batch => ({
  wallet: getAddress(b[0] as string),
  nonce: b[1] as bigint,
  deadline: b[2] as bigint,
  calls: (b[3] as Result[]).map((c) => ({
    target: getAddress(c[0] as string),
    value: c[1] as bigint,
    data: (c[2] as string).toLowerCase(),
  })),
});

/**
 * `proxy(_batches, _signatures)`: each wallet checks its batch, then makes its calls (the effects of
 * one seen by the next, as on chain) and moves its nonce on. A refusal or a reverted call reverts
 * the whole transaction, naming the call (`call <i> reverted: <reason>`).
 */
function proxy(
  state: PolymarketState,
  batches: Batch[],
  signatures: string[],
  plan: (call: Call) => Outcome,
): Run {
  if (batches.length !== signatures.length) return refused('batches and signatures length mismatch');
  const nowS = BigInt(Math.floor(state.now() / 1000));
  let gas = GAS.call;
  const logs: EventLog[] = [];
  for (const [b, batch] of batches.entries()) {
    const refusal = state.depositWallets.batchRefusal(batch, signatures[b]!, nowS);
    if (refusal) return refused(refusal);
    gas += GAS.batch;
    for (const [i, c] of batch.calls.entries()) {
      const out = plan({ from: batch.wallet, to: c.target, data: c.data, value: c.value });
      if (!out.ok) return refused(`call ${i} reverted${out.reason ? `: ${out.reason}` : ''}`);
      gas += out.gas;
      logs.push(...out.apply());
    }
    state.depositWallets.bumpNonce(batch.wallet);
  }
  return { ok: true, gas, logs };
}

/**
 * A call to the factory, planned like any other (tx-effects.ts `planCall`, which `plan` is): a dry
 * run decides whether it succeeds, its gas and its logs, and is undone; mining runs it again for
 * real. Calldata that does not decode throws, and `planCall` turns that into a revert.
 */
export function depositWalletFactoryCall(
  state: PolymarketState,
  call: Call,
  plan: (call: Call) => Outcome,
): Outcome {
  const fail = (reason?: string): Outcome => ({ ok: false, reason, gas: GAS.revert });
  if (call.from.toLowerCase() !== RELAYER_OPERATOR.address.toLowerCase()) return fail();
  const parsed = DEPOSIT_WALLET_FACTORY.parseTransaction({ data: call.data });
  let run: () => Run;
  if (parsed?.name === 'deploy') {
    const [owners, ids] = parsed.args as unknown as [string[], string[]];
    run = () => deploy(state, [...owners], [...ids]);
  } else if (parsed?.name === 'proxy') {
    const [batches, signatures] = parsed.args as unknown as [Result[], string[]];
    run = () => proxy(state, batches.map(batchOf), [...signatures], plan);
  } else return fail();
  const dry = dryRun(state, run);
  if (!dry.ok) return fail(dry.reason);
  return {
    ok: true,
    returnData: '0x',
    gas: dry.gas,
    apply: () => {
      const done = run();
      // Mining applies right after planning, on the same state: the dry run's outcome holds.
      if (!done.ok)
        throw new Error(`deposit wallet factory: planned call failed when applied: ${done.reason}`);
      return done.logs;
    },
  };
}
