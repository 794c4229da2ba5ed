// Polygon addresses the emulated CLOB V2 speaks in (reference §6.1, §8.1). Orders are signed for
// one of the two V2 exchanges, the ledger keeps allowances towards these spenders, and the
// balance-allowance endpoint reports them. Compared lower-case everywhere: the official clients
// send checksummed addresses, hand-written tests often do not.

export const CHAIN_ID = 137;

export const CONTRACTS = {
  pusd: '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB',
  ctf: '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045',
  exchangeV2: '0xE111180000d2663C0091e4f400237545B87B996B',
  negRiskExchangeV2: '0xe2222d279d744050d28e00520010520000310F59',
  /** Neg-risk "Exchange B" and the V2 fee escrow: spenders the official client approves, no orders. */
  negRiskExchangeV2B: '0xe2222d002000Ba0053CEF3375333610F64600036',
  feeEscrowV2: '0x3A43D88ef8Aae4dF5a50B3abf67122CAAeEF7c9F',
  negRiskAdapter: '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296',
  ctfCollateralAdapter: '0xAdA100Db00Ca00073811820692005400218FcE1f',
  negRiskCtfCollateralAdapter: '0xadA2005600Dec949baf300f4C6120000bDB6eAab',
  /** Retired V1 exchanges: a V1-signed order names these. */
  exchangeV1: '0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E',
  negRiskExchangeV1: '0xC5d563A36AE78145C45a50134d48A1215220f80a',
  /** Protocol-V2 markets (domain "3"); the emulator lists only CTF markets, so only for vectors. */
  exchangeV3: '0xe3333700cA9d93003F00f0F71f8515005F6c00Aa',
  /** Combo position tokens (ERC-1155): only their operator approvals are emulated. */
  positionManager: '0x006F54F7f9A22e0000CC2AB60031000000ae9fEF',
  /** USDC.e, the legacy collateral a deposit wallet may hold before it is wrapped into pUSD. */
  usdcE: '0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174',
  /** CollateralOnramp: `wrap(asset, to, amount)` turns USDC.e into pUSD 1:1. */
  collateralOnramp: '0x93070a847efEf7F70739046A929D47a521F5B8ee',
  /** The deposit wallet factory: relayer WALLET-CREATE deploys from it, WALLET batches go to it. */
  depositWalletFactory: '0x00000000000Fb5C9ADea0298D729A0CB3823Cc07',
} as const;

/** The exchange a V2 order for this market is signed for, and the spender/operator it needs. */
export function exchangeFor(negRisk: boolean): string {
  return negRisk ? CONTRACTS.negRiskExchangeV2 : CONTRACTS.exchangeV2;
}

/**
 * Everyone an "approve everything" wallet set-up approves (reference §8.3, and the official
 * client's set): pUSD allowances and CTF setApprovalForAll towards the V2 exchanges, the fee
 * escrow, the neg-risk adapter and the collateral adapters.
 */
export const APPROVAL_TARGETS: readonly string[] = [
  CONTRACTS.exchangeV2,
  CONTRACTS.negRiskExchangeV2,
  CONTRACTS.negRiskExchangeV2B,
  CONTRACTS.feeEscrowV2,
  CONTRACTS.negRiskAdapter,
  CONTRACTS.ctfCollateralAdapter,
  CONTRACTS.negRiskCtfCollateralAdapter,
];

/** The spenders `GET /balance-allowance` reports (the ones CLOB trading depends on). */
export const CLOB_SPENDERS: readonly string[] = [
  CONTRACTS.exchangeV2,
  CONTRACTS.negRiskExchangeV2,
  CONTRACTS.negRiskAdapter,
];

/** Deterministic address of the emulator's own liquidity (the synthetic book's market maker). */
export const HOUSE_ADDRESS = '0x00000000000000000000000000000000c10b0000';
export const HOUSE_OWNER = '00000000-0000-4000-8000-00000000c10b';
