import { Interface } from 'ethers';

// The slices of the Polymarket contracts' ABIs the chain stand-in understands (reference §8.2).
// Human-readable fragments: ethers derives the same selectors the reference lists, so calldata the
// official SDKs build decodes here unchanged.

/** pUSD: ERC-20 reads, `approve`, and plain `transfer` (a real token never refuses one). */
export const ERC20 = new Interface([
  'function balanceOf(address owner) view returns (uint256)',
  'function allowance(address owner, address spender) view returns (uint256)',
  'function decimals() view returns (uint8)',
  'function approve(address spender, uint256 amount) returns (bool)',
  'function transfer(address to, uint256 amount) returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event Approval(address indexed owner, address indexed spender, uint256 value)',
]);

/** ConditionalTokens: ERC-1155 reads and operator approval, resolution views, legacy redemption. */
export const CTF = new Interface([
  'function balanceOf(address owner, uint256 id) view returns (uint256)',
  'function balanceOfBatch(address[] owners, uint256[] ids) view returns (uint256[])',
  'function isApprovedForAll(address owner, address operator) view returns (bool)',
  'function setApprovalForAll(address operator, bool approved)',
  'function payoutDenominator(bytes32 conditionId) view returns (uint256)',
  'function payoutNumerators(bytes32 conditionId, uint256 index) view returns (uint256)',
  'function redeemPositions(address collateral, bytes32 parentCollectionId, bytes32 conditionId, uint256[] indexSets)',
  'event ApprovalForAll(address indexed owner, address indexed operator, bool approved)',
  'event TransferSingle(address indexed operator, address indexed from, address indexed to, uint256 id, uint256 value)',
  'event TransferBatch(address indexed operator, address indexed from, address indexed to, uint256[] ids, uint256[] values)',
  'event PayoutRedemption(address indexed redeemer, address indexed collateralToken, bytes32 indexed parentCollectionId, bytes32 conditionId, uint256[] indexSets, uint256 payout)',
]);

/** CollateralOnramp: wraps USDC.e (or USDC) held by the caller into pUSD for `to`. */
export const ONRAMP = new Interface(['function wrap(address asset, address to, uint256 amount)']);

/**
 * pUSD is Polymarket's CollateralToken (ctf-exchange-v2 `src/collateral/CollateralToken.sol`): the
 * collateral adapters hand a redemption's USDC.e to it and `wrap` it into pUSD for the redeemer,
 * which mints (an ERC-20 Transfer from 0x0) and emits `Wrapped`.
 */
export const COLLATERAL_TOKEN = new Interface([
  'event Wrapped(address indexed caller, address indexed asset, address indexed to, uint256 amount)',
]);

/**
 * NegRiskAdapter's own redemption: explicit amounts of [yes, no] to redeem, and its event
 * (neg-risk-ctf-adapter `src/NegRiskAdapter.sol`), whose shape differs from the CTF's.
 */
export const NEG_RISK_ADAPTER = new Interface([
  'function redeemPositions(bytes32 conditionId, uint256[] amounts)',
  'event PayoutRedemption(address indexed redeemer, bytes32 indexed conditionId, uint256[] amounts, uint256 payout)',
]);

/**
 * The deposit wallet factory's operator entry points, as its verified source on Polygonscan
 * declares them (the reference gives only the factory's address; the signatures are quoted from
 * that source by polygolem's DEPOSIT-WALLET-REDEEM-VALIDATION.md): `deploy` creates the wallets of
 * `_owners` (`_ids` = each owner's walletId, the EOA left-padded to 32 bytes), `proxy` has each
 * wallet run its owner-signed `Batch`. Both are `onlyOperator`: the relayer's transactions.
 */
export const DEPOSIT_WALLET_FACTORY = new Interface([
  'function deploy(address[] _owners, bytes32[] _ids)',
  'function proxy((address wallet, uint256 nonce, uint256 deadline, (address target, uint256 value, bytes data)[] calls)[] _batches, bytes[] _signatures)',
]);

/** geth's encoding of a revert reason: `Error(string)` (selector 0x08c379a0). */
export const REVERT_ERROR = new Interface(['function Error(string)']);

export function revertData(reason: string): string {
  return REVERT_ERROR.encodeFunctionData('Error', [reason]);
}

/**
 * CTF Exchange V2 and the Neg Risk CTF Exchange V2 (same mixins, so the same events): what a
 * matched order leaves on chain. The reference (polymarket.md §6.1, §8.1) gives the addresses but
 * not the events; these are quoted from ctf-exchange-v2 `src/exchange/interfaces/ITrading.sol`
 * (topics `keccak256("OrderFilled(bytes32,address,address,uint8,uint256,uint256,uint256,uint256,bytes32,bytes32)")`
 * and `keccak256("OrdersMatched(bytes32,address,uint8,uint256,uint256,uint256)")` in
 * `mixins/Events.sol`; `Side` is a uint8 enum, BUY = 0, SELL = 1).
 */
export const CTF_EXCHANGE_V2 = new Interface([
  'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee, bytes32 builder, bytes32 metadata)',
  'event OrdersMatched(bytes32 indexed takerOrderHash, address indexed takerOrderMaker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled)',
  // Not the exchange's `matchOrders`: the emulated operator's settlement names a match the CLOB
  // already settled on the ledger, whose fill events the call emits (exchange-settlement.ts).
  'function settleEmulatedMatch(bytes32 matchId)',
]);
