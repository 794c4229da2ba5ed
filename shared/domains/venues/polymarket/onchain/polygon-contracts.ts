/**
 * Polygon facts the relay allow-list and the approval builder are written against. Every value is
 * copied from polymarket.md §8 (two spenders from the official client, said where) and cross-checked in test/unit/tx-allowlist.test.ts (addresses are
 * EIP-55 checksummed; selectors equal ethers `id(signature).slice(0, 10)`), so a typo here fails a
 * test instead of silently widening or narrowing what may be relayed.
 */

/** Polygon PoS mainnet (polymarket.md §8 title); a transaction signed for any other chain is refused. */
export const POLYGON_CHAIN_ID = 137n;

// Addresses: polymarket.md §8.1 (the official ts-sdk `production` environment). Only the ones the
// allow-list or the builders name, plus the retired and Protocol-V2 contracts so that they can be
// recognised and refused by name rather than as "unknown".
export const POLYGON_CONTRACTS = {
  /** pUSD, the CLOB V2 collateral (ERC-20, 6 decimals). */
  pusd: '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB',
  /** USDC.e (bridged): the CTF's internal collateral and what the legacy direct redemption pays. */
  usdcBridged: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
  /** Native USDC, the other asset the onramp wraps into pUSD. */
  usdcNative: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359',
  collateralOnramp: '0x93070a847efEf7F70739046A929D47a521F5B8ee',
  collateralOfframp: '0x2957922Eb93258b93368531d39fAcCA3B4dC5854',
  /** ConditionalTokens (ERC-1155 outcome positions). */
  ctf: '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045',
  ctfExchangeV2: '0xE111180000d2663C0091e4f400237545B87B996B',
  negRiskExchangeV2: '0xe2222d279d744050d28e00520010520000310F59',
  /**
   * The second neg-risk V2 exchange ("Exchange B"): named by polymarket.md §6.1 from a third-party
   * SDK [unverified], and by the official Simmer client, which approves it beside Exchange A.
   * Public V2 indexers see OrderFilled from it, so it is a live exchange, not a typo of A.
   */
  negRiskExchangeV2B: '0xe2222d002000Ba0053CEF3375333610F64600036',
  /**
   * The V2 fee escrow (pUSD fee collection, "2026-05-01 upgrade"): not in polymarket.md §8.1; the
   * official Simmer client's contract table names it and its set_approvals() grants it pUSD.
   */
  feeEscrowV2: '0x3A43D88ef8Aae4dF5a50B3abf67122CAAeEF7c9F',
  /** NegRiskAdapter: legacy neg-risk redemption (USDC.e) and still the neg-risk ERC-1155 front. */
  negRiskAdapter: '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296',
  ctfCollateralAdapter: '0xAdA100Db00Ca00073811820692005400218FcE1f',
  negRiskCtfCollateralAdapter: '0xadA2005600Dec949baf300f4C6120000bDB6eAab',
  /** Protocol-V2 markets: not supported by this service yet (polymarket.md §0 "pragmatic plan"). */
  exchangeV3: '0xe3333700cA9d93003F00f0F71f8515005F6c00Aa',
  protocolV2Router: '0x12121212006e4CD160D18e3f00711DA5c3372600',
  positionManager: '0x006F54F7f9A22e0000CC2AB60031000000ae9fEF',
  autoRedeemOperator: '0xa1200000d0002264C9a1698e001292D00E1b00af',
  /** Deploys deposit wallets (signature type 3); relayer batches of their owners are addressed to it. */
  depositWalletFactory: '0x00000000000Fb5C9ADea0298D729A0CB3823Cc07',
  /** Retired CLOB V1 exchanges: approving them today only exposes funds to a dead contract. */
  ctfExchangeV1: '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E',
  negRiskExchangeV1: '0xC5d563A36AE78145C45a50134d48A1215220f80a',
} as const;

export type PolygonContractName = keyof typeof POLYGON_CONTRACTS;

/** The §8.1 name of an address (any case), or null when it is not a Polymarket contract. */
export function contractName(address: string): PolygonContractName | null {
  const lower = address.toLowerCase();
  for (const [name, addr] of Object.entries(POLYGON_CONTRACTS))
    if (addr.toLowerCase() === lower) return name as PolygonContractName;
  return null;
}

// Function selectors: polymarket.md §8.2 (computed there with ethers v6 `id()`). The signatures
// are kept next to the selectors because the allow-list decodes calldata with them.
export const ALLOWED_FUNCTIONS = {
  approve: { signature: 'approve(address,uint256)', selector: '0x095ea7b3' },
  setApprovalForAll: { signature: 'setApprovalForAll(address,bool)', selector: '0xa22cb465' },
  /** CTF and both collateral adapters (collateral, parentCollectionId, conditionId, indexSets). */
  redeemPositions: {
    signature: 'redeemPositions(address,bytes32,bytes32,uint256[])',
    selector: '0x01b7037c',
  },
  /** NegRiskAdapter (conditionId, amounts = [yes, no]). */
  redeemNegRisk: { signature: 'redeemPositions(bytes32,uint256[])', selector: '0xdbeccb23' },
} as const;

// Selectors refused with a code of their own, because they move funds or widen an allowance
// without naming a spender the allow-list could check. `transfer` and `wrap` are in §8.2; the
// others are the standard ERC-20 / ERC-1155 / ERC-2612 ones, not listed in the reference, so the
// test recomputes each from its signature.
export const FORBIDDEN_FUNCTIONS = {
  transfer: { signature: 'transfer(address,uint256)', selector: '0xa9059cbb' },
  transferFrom: { signature: 'transferFrom(address,address,uint256)', selector: '0x23b872dd' },
  safeTransferFrom: {
    signature: 'safeTransferFrom(address,address,uint256,uint256,bytes)',
    selector: '0xf242432a',
  },
  safeBatchTransferFrom: {
    signature: 'safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)',
    selector: '0x2eb2c2d6',
  },
  increaseAllowance: { signature: 'increaseAllowance(address,uint256)', selector: '0x39509351' },
  permit: {
    signature: 'permit(address,address,uint256,uint256,uint8,bytes32,bytes32)',
    selector: '0xd505accf',
  },
} as const;

// Other §8.2 selectors the relay recognises only to name them in a refusal (split, merge,
// convert, wrap/unwrap, Protocol-V2 router calls): none of them is an approval or a redemption.
export const OTHER_KNOWN_FUNCTIONS = {
  splitPosition: {
    signature: 'splitPosition(address,bytes32,bytes32,uint256[],uint256)',
    selector: '0x72ce4275',
  },
  mergePositions: {
    signature: 'mergePositions(address,bytes32,bytes32,uint256[],uint256)',
    selector: '0x9e7212ad',
  },
  convertPositions: { signature: 'convertPositions(bytes32,uint256,uint256)', selector: '0xc64748c4' },
  wrap: { signature: 'wrap(address,address,uint256)', selector: '0x62355638' },
  unwrap: { signature: 'unwrap(address,address,uint256)', selector: '0x8cc7104f' },
  routerRedeem: { signature: 'redeem(bytes31,uint256,uint256)', selector: '0xd217a3cc' },
} as const;
