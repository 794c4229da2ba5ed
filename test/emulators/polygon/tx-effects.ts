import type { Interface, Result } from 'ethers';
import { CONTRACTS } from '../polymarket/contracts.js';
import type { MarketRecord } from '../polymarket/model.js';
import type { PolymarketState } from '../polymarket/state.js';
import { LedgerError } from '../polymarket/wallet-ledger.js';
import { COLLATERAL_TOKEN, CTF, ERC20, NEG_RISK_ADAPTER, ONRAMP } from './abi.js';
import { depositWalletFactoryCall } from './deposit-wallet-factory.js';
import { exchangeCall } from './exchange-settlement.js';

// What a call to one of the Polymarket contracts does to the shared ledger (reference §8.3). One
// planner serves `eth_call` (return data only), `eth_estimateGas` (gas or the revert) and mining
// (the effect is applied): a call is planned against the current state and, if it succeeds,
// carries an `apply` that performs the writes. Reads and writes go to `state.ledger`, the
// instance the emulated CLOB checks orders against, which is what makes an on-chain approval an
// allowance the CLOB honours.

/** Legacy collateral: the CTF positions of CLOB markets are still keyed on USDC.e (§8.1). */
export const USDC_E = '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174';

const lower = (a: string) => a.toLowerCase();
const KNOWN = new Set(Object.values(CONTRACTS).map(lower));
const ZERO_BYTES32 = `0x${'0'.repeat(64)}`;
const ZERO_ADDRESS = `0x${'0'.repeat(40)}`;

/** Every emulated contract address: they have code (eth_getCode) and refuse what they do not implement. */
export function isContract(address: string): boolean {
  return KNOWN.has(lower(address));
}

export interface Call {
  from: string;
  /** null: a contract creation. */
  to: string | null;
  data: string;
  value: bigint;
}

/** An event a mined call emits (receipt `logs`). */
export interface EventLog {
  address: string;
  topics: string[];
  data: string;
}

/** Performs the writes; returns the events the real contract would emit. */
type Apply = () => EventLog[];

export type Outcome =
  | { ok: true; returnData: string; gas: bigint; apply: Apply }
  /** `reason` undefined: a revert without a reason string (no matching function, non-payable). */
  | { ok: false; reason: string | undefined; gas: bigint };

// Gas used, roughly what these calls cost on Polygon: the exact numbers matter to no client, but a
// transaction whose gas limit is below them fails (out of gas) as it would on chain.
const GAS = {
  transfer: 21_000n,
  view: 30_000n,
  approve: 46_000n,
  setApprovalForAll: 46_000n,
  tokenTransfer: 52_000n,
  redeem: 120_000n,
  revert: 30_000n,
};

const ok = (gas: bigint, returnData = '0x', apply: Apply = () => []): Outcome => ({
  ok: true,
  returnData,
  gas,
  apply,
});
const revert = (reason?: string): Outcome => ({ ok: false, reason, gas: GAS.revert });

function event(iface: Interface, address: string, name: string, args: unknown[]): EventLog {
  const { topics, data } = iface.encodeEventLog(name, args);
  return { address: lower(address), topics, data };
}

/**
 * A legacy redemption's payout leaving `payer` (the contract called) for the redeemer: the ERC-20
 * Transfer event, in pUSD here (on the chain, USDC.e).
 */
const payoutLog = (payer: string, to: string, payout: bigint): EventLog[] =>
  payout > 0n ? [event(ERC20, CONTRACTS.pusd, 'Transfer', [payer, to, payout])] : [];

/** CTF payout vector of a market: [numerator yes, numerator no] over the denominator; undefined before resolution. */
export function payouts(
  m: MarketRecord | undefined,
): { numerators: [bigint, bigint]; denominator: bigint } | undefined {
  switch (m?.resolution) {
    case 'yes':
      return { numerators: [1n, 0n], denominator: 1n };
    case 'no':
      return { numerators: [0n, 1n], denominator: 1n };
    case '50-50':
      return { numerators: [1n, 1n], denominator: 2n };
    default:
      return undefined;
  }
}

// The real CTF's require message when a condition has no payouts yet.
const NOT_RESOLVED = 'result for condition not received yet';
const NOT_APPROVED = 'ERC1155: caller is not token owner or approved';

export function planCall(state: PolymarketState, call: Call): Outcome {
  if (call.to === null) return revert('contract creation is not emulated');
  const to = lower(call.to);
  if (!KNOWN.has(to)) {
    // An account without code: data is ignored and the value moves (see chain-state.ts).
    return ok(GAS.transfer);
  }
  // None of the emulated contracts is payable.
  if (call.value !== 0n) return revert();
  const selector = call.data.slice(0, 10).toLowerCase();
  try {
    if (to === lower(CONTRACTS.pusd)) return pusdCall(state, call, selector);
    if (to === lower(CONTRACTS.usdcE)) return usdceCall(state, call, selector);
    if (to === lower(CONTRACTS.collateralOnramp)) return onrampWrap(state, call, selector);
    if (to === lower(CONTRACTS.positionManager)) return positionManagerCall(state, call, selector);
    if (to === lower(CONTRACTS.ctf)) return ctfCall(state, call, selector);
    if (to === lower(CONTRACTS.ctfCollateralAdapter) || to === lower(CONTRACTS.negRiskCtfCollateralAdapter))
      return adapterRedeem(state, call, selector, to === lower(CONTRACTS.negRiskCtfCollateralAdapter));
    if (to === lower(CONTRACTS.negRiskAdapter)) return negRiskAdapterRedeem(state, call, selector);
    // The relayer's transactions: wallets deployed, and owner-signed batches run from the wallets.
    // The exchange operator's settlements of matches the CLOB (or the crowd) made.
    if (to === lower(CONTRACTS.exchangeV2) || to === lower(CONTRACTS.negRiskExchangeV2))
      return exchangeCall(state, call);
    if (to === lower(CONTRACTS.depositWalletFactory))
      return depositWalletFactoryCall(state, call, (inner) => planCall(state, inner));
  } catch (err) {
    // Calldata that does not decode against the function's ABI: Solidity reverts without a reason.
    if (err instanceof Error && 'code' in err) return revert();
    throw err;
  }
  return revert();
}

function decode(iface: typeof ERC20, name: string, data: string): Result {
  return iface.decodeFunctionData(name, data);
}

/** A ledger write that may fail with a revert-like LedgerError, as a planned outcome. */
function guarded(gas: bigint, returnData: string, check: () => void, apply: Apply): Outcome {
  try {
    check();
  } catch (err) {
    if (err instanceof LedgerError) return revert(err.message);
    throw err;
  }
  return ok(gas, returnData, apply);
}

function pusdCall(state: PolymarketState, call: Call, selector: string): Outcome {
  const { ledger } = state;
  const fn = ERC20.getFunction(selector);
  switch (fn?.name) {
    case 'balanceOf': {
      const [owner] = decode(ERC20, 'balanceOf', call.data);
      return ok(GAS.view, ERC20.encodeFunctionResult('balanceOf', [ledger.pusdBalance(owner as string)]));
    }
    case 'allowance': {
      const [owner, spender] = decode(ERC20, 'allowance', call.data);
      return ok(
        GAS.view,
        ERC20.encodeFunctionResult('allowance', [ledger.allowance(owner as string, spender as string)]),
      );
    }
    case 'decimals':
      return ok(GAS.view, ERC20.encodeFunctionResult('decimals', [6]));
    case 'approve': {
      const [spender, amount] = decode(ERC20, 'approve', call.data);
      return ok(GAS.approve, ERC20.encodeFunctionResult('approve', [true]), () => {
        ledger.approve(call.from, spender as string, amount as bigint);
        return [event(ERC20, CONTRACTS.pusd, 'Approval', [call.from, spender, amount])];
      });
    }
    case 'transfer': {
      const [dest, amount] = decode(ERC20, 'transfer', call.data);
      return guarded(
        GAS.tokenTransfer,
        ERC20.encodeFunctionResult('transfer', [true]),
        () => {
          if (ledger.pusdBalance(call.from) < (amount as bigint))
            throw new LedgerError('ERC20: transfer amount exceeds balance');
        },
        () => {
          ledger.transferPusd(call.from, dest as string, amount as bigint);
          return [event(ERC20, CONTRACTS.pusd, 'Transfer', [call.from, dest, amount])];
        },
      );
    }
    default:
      return revert();
  }
}

/** USDC.e: balance, allowance, approve (what wrapping it into pUSD through the onramp needs). */
function usdceCall(state: PolymarketState, call: Call, selector: string): Outcome {
  const { ledger } = state;
  switch (ERC20.getFunction(selector)?.name) {
    case 'balanceOf': {
      const [owner] = decode(ERC20, 'balanceOf', call.data);
      return ok(GAS.view, ERC20.encodeFunctionResult('balanceOf', [ledger.usdceBalance(owner as string)]));
    }
    case 'allowance': {
      const [owner, spender] = decode(ERC20, 'allowance', call.data);
      return ok(
        GAS.view,
        ERC20.encodeFunctionResult('allowance', [ledger.usdceAllowance(owner as string, spender as string)]),
      );
    }
    case 'decimals':
      return ok(GAS.view, ERC20.encodeFunctionResult('decimals', [6]));
    case 'approve': {
      const [spender, amount] = decode(ERC20, 'approve', call.data);
      return ok(GAS.approve, ERC20.encodeFunctionResult('approve', [true]), () => {
        ledger.approveUsdce(call.from, spender as string, amount as bigint);
        return [event(ERC20, CONTRACTS.usdcE, 'Approval', [call.from, spender, amount])];
      });
    }
    default:
      return revert();
  }
}

/**
 * CollateralOnramp `wrap(asset, to, amount)`: pulls `amount` USDC.e from the caller (it needs the
 * caller's allowance) and mints as much pUSD to `to`. Only USDC.e is emulated as an asset.
 */
function onrampWrap(state: PolymarketState, call: Call, selector: string): Outcome {
  if (ONRAMP.getFunction(selector)?.name !== 'wrap') return revert();
  const [asset, to, amount] = ONRAMP.decodeFunctionData('wrap', call.data) as unknown as [
    string,
    string,
    bigint,
  ];
  if (lower(asset) !== lower(CONTRACTS.usdcE)) return revert('unsupported asset');
  const { ledger } = state;
  return guarded(
    GAS.tokenTransfer * 2n,
    '0x',
    () => {
      if (ledger.usdceAllowance(call.from, CONTRACTS.collateralOnramp) < amount)
        throw new LedgerError('ERC20: insufficient allowance');
      if (ledger.usdceBalance(call.from) < amount)
        throw new LedgerError('ERC20: transfer amount exceeds balance');
    },
    () => {
      ledger.transferUsdce(call.from, CONTRACTS.collateralOnramp, amount, CONTRACTS.collateralOnramp);
      ledger.mintPusd(to, amount);
      return [
        event(ERC20, CONTRACTS.usdcE, 'Transfer', [call.from, CONTRACTS.collateralOnramp, amount]),
        event(ERC20, CONTRACTS.pusd, 'Transfer', [ZERO_ADDRESS, to, amount]),
      ];
    },
  );
}

/** PositionManager (combo position tokens): only the ERC-1155 operator approval is emulated. */
function positionManagerCall(state: PolymarketState, call: Call, selector: string): Outcome {
  const { ledger } = state;
  const pm = CONTRACTS.positionManager;
  switch (CTF.getFunction(selector)?.name) {
    case 'isApprovedForAll': {
      const [owner, operator] = decode(CTF, 'isApprovedForAll', call.data);
      return ok(
        GAS.view,
        CTF.encodeFunctionResult('isApprovedForAll', [
          ledger.isApprovedForAll(owner as string, operator as string, pm),
        ]),
      );
    }
    case 'setApprovalForAll': {
      const [operator, approved] = decode(CTF, 'setApprovalForAll', call.data);
      return ok(GAS.setApprovalForAll, '0x', () => {
        ledger.setApprovalForAll(call.from, operator as string, approved as boolean, pm);
        return [event(CTF, pm, 'ApprovalForAll', [call.from, operator, approved])];
      });
    }
    default:
      return revert();
  }
}

function ctfCall(state: PolymarketState, call: Call, selector: string): Outcome {
  const { ledger } = state;
  const fn = CTF.getFunction(selector);
  switch (fn?.name) {
    case 'balanceOf': {
      const [owner, id] = decode(CTF, 'balanceOf', call.data);
      return ok(
        GAS.view,
        CTF.encodeFunctionResult('balanceOf', [
          ledger.tokenBalance(owner as string, (id as bigint).toString()),
        ]),
      );
    }
    case 'balanceOfBatch': {
      const [owners, ids] = decode(CTF, 'balanceOfBatch', call.data) as unknown as [string[], bigint[]];
      if (owners.length !== ids.length) return revert('ERC1155: accounts and ids length mismatch');
      const balances = owners.map((o, i) => ledger.tokenBalance(o, (ids[i] as bigint).toString()));
      return ok(GAS.view, CTF.encodeFunctionResult('balanceOfBatch', [balances]));
    }
    case 'isApprovedForAll': {
      const [owner, operator] = decode(CTF, 'isApprovedForAll', call.data);
      return ok(
        GAS.view,
        CTF.encodeFunctionResult('isApprovedForAll', [
          ledger.isApprovedForAll(owner as string, operator as string),
        ]),
      );
    }
    case 'setApprovalForAll': {
      const [operator, approved] = decode(CTF, 'setApprovalForAll', call.data);
      if (lower(operator as string) === lower(call.from))
        return revert('ERC1155: setting approval status for self');
      return ok(GAS.setApprovalForAll, '0x', () => {
        ledger.setApprovalForAll(call.from, operator as string, approved as boolean);
        return [event(CTF, CONTRACTS.ctf, 'ApprovalForAll', [call.from, operator, approved])];
      });
    }
    case 'payoutDenominator': {
      const [conditionId] = decode(CTF, 'payoutDenominator', call.data);
      const p = payouts(state.marketByConditionId(conditionId as string));
      return ok(GAS.view, CTF.encodeFunctionResult('payoutDenominator', [p?.denominator ?? 0n]));
    }
    case 'payoutNumerators': {
      const [conditionId, index] = decode(CTF, 'payoutNumerators', call.data);
      const m = state.marketByConditionId(conditionId as string);
      // A prepared condition has two outcome slots; past them (or for an unknown condition) the
      // public array getter reverts.
      if (!m || (index as bigint) > 1n) return revert();
      const p = payouts(m);
      return ok(GAS.view, CTF.encodeFunctionResult('payoutNumerators', [p?.numerators[Number(index)] ?? 0n]));
    }
    case 'redeemPositions':
      return ctfRedeem(state, call);
    default:
      return revert();
  }
}

/** The market's [yes, no] position ids as the CTF's ERC-1155 events carry them. */
const positionIds = (m: MarketRecord): [bigint, bigint] => [BigInt(m.tokenIds[0]), BigInt(m.tokenIds[1])];

/** The CTF burning what `holder` redeems (its `_burn`: TransferSingle to 0x0, `operator` the caller). */
const burnLogs = (operator: string, holder: string, m: MarketRecord, amounts: bigint[]): EventLog[] =>
  amounts.flatMap((a, i) =>
    a > 0n
      ? [event(CTF, CONTRACTS.ctf, 'TransferSingle', [operator, holder, ZERO_ADDRESS, positionIds(m)[i], a])]
      : [],
  );

/**
 * Direct CTF redemption (the legacy path, §8.3): burns the caller's whole balance of each index
 * set's position and pays it at the payout ratio. The emulator pays pUSD (its ledger has no
 * USDC.e). Positions exist only for collateral USDC.e with a zero parent collection and only for
 * standard markets (neg-risk positions are keyed on the adapter's wrapped collateral), so any other
 * combination finds nothing and pays 0, as the real contract would.
 */
function ctfRedeem(state: PolymarketState, call: Call): Outcome {
  const [collateral, parent, conditionId, indexSets] = decode(
    CTF,
    'redeemPositions',
    call.data,
  ) as unknown as [string, string, string, bigint[]];
  const m = state.marketByConditionId(conditionId);
  const p = payouts(m);
  if (!m || !p) return revert(NOT_RESOLVED);
  if (indexSets.some((s) => s <= 0n || s >= 3n)) return revert('got invalid index set');
  const found = lower(collateral) === lower(USDC_E) && lower(parent) === ZERO_BYTES32 && !m.negRisk;
  const outcomes = found ? indexSets.map((s) => (s === 1n ? 0 : 1)) : [];
  // The real CTF burns, pays, then logs every redemption, paid or not, naming its caller.
  return redeemOutcomes(state, call.from, m, p, outcomes, (amounts, payout) => [
    ...burnLogs(call.from, call.from, m, amounts),
    ...payoutLog(CONTRACTS.ctf, call.from, payout),
    event(CTF, CONTRACTS.ctf, 'PayoutRedemption', [
      call.from,
      collateral,
      parent,
      conditionId,
      indexSets,
      payout,
    ]),
  ]);
}

/**
 * CtfCollateralAdapter / NegRiskCtfCollateralAdapter `redeemPositions`: the 1st, 2nd and 4th
 * arguments are ignored and the caller's full balance of both outcomes is redeemed for pUSD (§8.3).
 * The adapter pulls the tokens, so it needs the CTF `setApprovalForAll` first. The adapter of the
 * other market family finds no positions and pays 0.
 */
function adapterRedeem(
  state: PolymarketState,
  call: Call,
  selector: string,
  negRiskAdapter: boolean,
): Outcome {
  if (CTF.getFunction(selector)?.name !== 'redeemPositions') return revert();
  const [, , conditionId] = decode(CTF, 'redeemPositions', call.data) as unknown as [string, string, string];
  const adapter = negRiskAdapter ? CONTRACTS.negRiskCtfCollateralAdapter : CONTRACTS.ctfCollateralAdapter;
  const m = state.marketByConditionId(conditionId);
  const p = payouts(m);
  if (!m || !p) return revert(NOT_RESOLVED);
  if (!state.ledger.isApprovedForAll(call.from, adapter)) return revert(NOT_APPROVED);
  const outcomes = m.negRisk === negRiskAdapter ? [0, 1] : [];
  return redeemOutcomes(state, call.from, m, p, outcomes, (amounts, payout) =>
    adapterRedemptionLogs(adapter, negRiskAdapter, call.from, m, amounts, payout),
  );
}

/**
 * The receipt of a collateral-adapter redemption as the real contracts write it (ctf-exchange-v2
 * `CtfCollateralAdapter.redeemPositions` / `NegRiskCtfCollateralAdapter._redeemPositions`): the
 * adapter pulls the holder's tokens (CTF TransferBatch, the holder as `from`), redeems them itself
 * — so the `PayoutRedemption` names the adapter, never the holder: the CTF's for a standard
 * market, the NegRiskAdapter's for a neg-risk one —, then hands the USDC.e to pUSD, which mints
 * it to the holder (Transfer from 0x0) and emits `Wrapped(adapter, USDC.e, holder, payout)`. Every
 * log is written even when nothing is paid. Not logged: pUSD moving the USDC.e to its vault and
 * the NegRiskAdapter's WrappedCollateral movements (with the CTF redemption keyed on it), whose
 * addresses the reference does not give. The adapter of the other family reads position ids of
 * the other collateral, which the emulator does not derive: its (zero) transfer names this
 * market's ids.
 */
function adapterRedemptionLogs(
  adapter: string,
  negRisk: boolean,
  holder: string,
  m: MarketRecord,
  amounts: bigint[],
  payout: bigint,
): EventLog[] {
  const ids = positionIds(m);
  const ctf = CONTRACTS.ctf;
  const pull = event(CTF, ctf, 'TransferBatch', [adapter, holder, adapter, ids, amounts]);
  const redemption = negRisk
    ? [
        // The NegRiskAdapter pulls them from the adapter and redeems them through the CTF.
        event(CTF, ctf, 'TransferBatch', [
          CONTRACTS.negRiskAdapter,
          adapter,
          CONTRACTS.negRiskAdapter,
          ids,
          amounts,
        ]),
        ...burnLogs(CONTRACTS.negRiskAdapter, CONTRACTS.negRiskAdapter, m, amounts),
        event(NEG_RISK_ADAPTER, CONTRACTS.negRiskAdapter, 'PayoutRedemption', [
          adapter,
          m.conditionId,
          amounts,
          payout,
        ]),
      ]
    : [
        ...burnLogs(adapter, adapter, m, amounts),
        ...(payout > 0n ? [event(ERC20, CONTRACTS.usdcE, 'Transfer', [ctf, adapter, payout])] : []),
        event(CTF, ctf, 'PayoutRedemption', [adapter, USDC_E, ZERO_BYTES32, m.conditionId, [1n, 2n], payout]),
      ];
  return [
    pull,
    ...redemption,
    event(ERC20, CONTRACTS.usdcE, 'Transfer', [adapter, CONTRACTS.pusd, payout]),
    event(ERC20, CONTRACTS.pusd, 'Transfer', [ZERO_ADDRESS, holder, payout]),
    event(COLLATERAL_TOKEN, CONTRACTS.pusd, 'Wrapped', [adapter, USDC_E, holder, payout]),
  ];
}

/** NegRiskAdapter `redeemPositions(conditionId, [yes, no])`: exactly these amounts, paid at the payout ratio. */
function negRiskAdapterRedeem(state: PolymarketState, call: Call, selector: string): Outcome {
  if (NEG_RISK_ADAPTER.getFunction(selector)?.name !== 'redeemPositions') return revert();
  const [conditionId, amounts] = NEG_RISK_ADAPTER.decodeFunctionData(
    'redeemPositions',
    call.data,
  ) as unknown as [string, bigint[]];
  const m = state.marketByConditionId(conditionId);
  const p = payouts(m);
  if (!m || !p) return revert(NOT_RESOLVED);
  if (amounts.length !== 2) return revert();
  if (!state.ledger.isApprovedForAll(call.from, CONTRACTS.negRiskAdapter)) return revert(NOT_APPROVED);
  const { ledger } = state;
  // Only neg-risk markets have positions the adapter knows; elsewhere every balance is zero.
  const held = (i: number) => (m.negRisk ? ledger.tokenBalance(call.from, m.tokenIds[i] as string) : 0n);
  if (amounts.some((a, i) => held(i) < a)) return revert('ERC1155: insufficient balance for transfer');
  const payout = amounts.reduce((sum, a, i) => sum + (a * (p.numerators[i] as bigint)) / p.denominator, 0n);
  const nra = CONTRACTS.negRiskAdapter;
  return ok(GAS.redeem, '0x', () => {
    amounts.forEach((a, i) => {
      if (a > 0n) ledger.burnTokens(call.from, m.tokenIds[i] as string, a);
    });
    if (payout > 0n) ledger.mintPusd(call.from, payout);
    // It pulls the amounts, redeems them through the CTF (WrappedCollateral legs not logged, see
    // adapterRedemptionLogs) and pays the caller, whom its PayoutRedemption names.
    return [
      event(CTF, CONTRACTS.ctf, 'TransferBatch', [nra, call.from, nra, positionIds(m), amounts]),
      ...burnLogs(nra, nra, m, amounts),
      ...payoutLog(nra, call.from, payout),
      event(NEG_RISK_ADAPTER, nra, 'PayoutRedemption', [call.from, conditionId, amounts, payout]),
    ];
  });
}

/**
 * Burns the caller's full balance of the given outcomes and pays their value in pUSD (0 for
 * losers); `logs` writes the receipt from the amounts taken per outcome ([yes, no]) and the payout.
 */
function redeemOutcomes(
  state: PolymarketState,
  from: string,
  m: MarketRecord,
  p: { numerators: [bigint, bigint]; denominator: bigint },
  outcomes: number[],
  logs: (amounts: bigint[], payout: bigint) => EventLog[],
): Outcome {
  const { ledger } = state;
  const taken = new Set(outcomes);
  const amounts = [0, 1].map((i) => (taken.has(i) ? ledger.tokenBalance(from, m.tokenIds[i] as string) : 0n));
  const payout = amounts.reduce((sum, a, i) => sum + (a * (p.numerators[i] as bigint)) / p.denominator, 0n);
  return ok(GAS.redeem, '0x', () => {
    amounts.forEach((a, i) => {
      if (a > 0n) ledger.burnTokens(from, m.tokenIds[i] as string, a);
    });
    if (payout > 0n) ledger.mintPusd(from, payout);
    return logs(amounts, payout);
  });
}
