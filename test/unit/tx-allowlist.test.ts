import assert from 'node:assert/strict';
import { AbiCoder, Interface, MaxUint256, Transaction, getAddress, id } from 'ethers';
import {
  REQUIRED_APPROVALS,
  ONRAMP_APPROVALS,
  approvalKey,
} from '../../shared/domains/venues/polymarket/onchain/approval-transactions.js';
import {
  ALLOWED_FUNCTIONS,
  FORBIDDEN_FUNCTIONS,
  OTHER_KNOWN_FUNCTIONS,
  POLYGON_CONTRACTS as C,
} from '../../shared/domains/venues/polymarket/onchain/polygon-contracts.js';
import { RELAY_REFUSAL_CODES } from '../../shared/domains/venues/polymarket/onchain/relay-refusal.js';
import {
  approvalTransactions,
  checkRelayableTransaction,
  redemptionTransaction,
  type RelayKind,
  type RelayRefusalCode,
} from '../../shared/domains/venues/polymarket/onchain/tx-allowlist.js';
import {
  LINKED,
  SECP256K1_N,
  STRANGER,
  editSignature,
  request,
  sign,
  word,
  type CallSpec,
} from './tx-allowlist.helpers.js';
import { CLIENT_APPROVALS, CLIENT_CTF } from '../support/client-approvals.js';

// The signed approval of polymarket.md §8.4 (key #0, nonce 7, EIP-1559, 200/30 gwei, gas 120000).
const REFERENCE_RAW =
  '0x02f8b38189078506fc23ac00852e90edd0008301d4c094c011a7e12a19f7b1f670d46f03b03f3342e82dfb80b844095ea7b3000000000000000000000000e111180000d2663c0091e4f400237545b87b996bffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc001a0ce82754ed4418713951077c61f94a5fb315b1b7ddbf2d54c8c3810aa90a4c9e5a00914fb95145839d4a4f4edbecd2b7748aa76f5a457ab3555ec666214743d154a';

const ATTACKER = '0x000000000000000000000000000000000000dEaD';
const CONDITION = `0x2e6a${'11'.repeat(28)}5fce`;
const ZERO32 = `0x${'0'.repeat(64)}`;

const abi = new Interface([
  'function approve(address,uint256)',
  'function setApprovalForAll(address,bool)',
  'function redeemPositions(address,bytes32,bytes32,uint256[])',
  'function redeemPositions(bytes32,uint256[])',
  'function transfer(address,uint256)',
  'function transferFrom(address,address,uint256)',
  'function safeTransferFrom(address,address,uint256,uint256,bytes)',
  'function safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)',
  'function increaseAllowance(address,uint256)',
  'function permit(address,address,uint256,uint256,uint8,bytes32,bytes32)',
  'function splitPosition(address,bytes32,bytes32,uint256[],uint256)',
  'function mergePositions(address,bytes32,bytes32,uint256[],uint256)',
  'function convertPositions(bytes32,uint256,uint256)',
  'function wrap(address,address,uint256)',
]);
const call = (fn: string, args: unknown[]) => abi.encodeFunctionData(fn, args);
const approve = (spender: string, amount: bigint = MaxUint256) => call('approve', [spender, amount]);
const operator = (op: string, approved = true) => call('setApprovalForAll', [op, approved]);
const redeem4 = (collateral: string, indexSets: number[] = [1, 2], parent = ZERO32, condition = CONDITION) =>
  call('redeemPositions(address,bytes32,bytes32,uint256[])', [collateral, parent, condition, indexSets]);
const redeem2 = (amounts: bigint[]) => call('redeemPositions(bytes32,uint256[])', [CONDITION, amounts]);

type Expect = { kind: RelayKind } | { code: RelayRefusalCode | RelayRefusalCode[] };
interface Row {
  name: string;
  raw: () => Promise<string> | string;
  expect: Expect;
}

const allowed = (name: string, c: CallSpec, kind: RelayKind): Row => ({
  name,
  raw: () => sign(c),
  expect: { kind },
});
const refused = (name: string, raw: Row['raw'], code: RelayRefusalCode | RelayRefusalCode[]): Row => ({
  name,
  raw,
  expect: { code },
});
const refusedCall = (name: string, c: CallSpec, code: RelayRefusalCode) => refused(name, () => sign(c), code);

const TABLE: Row[] = [
  // ---- allowed: approvals of pUSD to every trading spender, both types, any amount -------------
  {
    name: 'reference vector: pUSD approve(Exchange V2, max), type 2',
    raw: () => REFERENCE_RAW,
    expect: { kind: 'approve-collateral' },
  },
  allowed(
    'pUSD approve(Exchange V2, max), legacy',
    { to: C.pusd, data: approve(C.ctfExchangeV2), type: 0 },
    'approve-collateral',
  ),
  allowed(
    'pUSD approve(NegRisk Exchange V2, max), legacy',
    { to: C.pusd, data: approve(C.negRiskExchangeV2), type: 0 },
    'approve-collateral',
  ),
  allowed(
    'pUSD approve(CtfCollateralAdapter, 1 pUSD), type 2',
    { to: C.pusd, data: approve(C.ctfCollateralAdapter, 1_000_000n) },
    'approve-collateral',
  ),
  allowed(
    'pUSD approve(NegRiskCtfCollateralAdapter, max), legacy',
    { to: C.pusd, data: approve(C.negRiskCtfCollateralAdapter), type: 0 },
    'approve-collateral',
  ),
  allowed(
    'pUSD approve(NegRiskAdapter, max), type 2',
    { to: C.pusd, data: approve(C.negRiskAdapter) },
    'approve-collateral',
  ),
  allowed(
    'pUSD approve(NegRisk Exchange B, max), type 2',
    { to: C.pusd, data: approve(C.negRiskExchangeV2B) },
    'approve-collateral',
  ),
  allowed(
    'pUSD approve(V2 fee escrow, max), legacy',
    { to: C.pusd, data: approve(C.feeEscrowV2), type: 0 },
    'approve-collateral',
  ),
  allowed(
    'pUSD approve(Exchange V2, 0) is a revocation',
    { to: C.pusd, data: approve(C.ctfExchangeV2, 0n), type: 0 },
    'revoke-collateral',
  ),
  // ---- allowed: CTF operators ------------------------------------------------------------------
  allowed(
    'CTF setApprovalForAll(Exchange V2, true), legacy',
    { to: C.ctf, data: operator(C.ctfExchangeV2), type: 0 },
    'approve-ctf-operator',
  ),
  allowed(
    'CTF setApprovalForAll(NegRisk Exchange V2, true), type 2',
    { to: C.ctf, data: operator(C.negRiskExchangeV2) },
    'approve-ctf-operator',
  ),
  allowed(
    'CTF setApprovalForAll(NegRisk Exchange B, true), legacy',
    { to: C.ctf, data: operator(C.negRiskExchangeV2B), type: 0 },
    'approve-ctf-operator',
  ),
  allowed(
    'CTF setApprovalForAll(CtfCollateralAdapter, true), type 2',
    { to: C.ctf, data: operator(C.ctfCollateralAdapter) },
    'approve-ctf-operator',
  ),
  allowed(
    'CTF setApprovalForAll(NegRiskAdapter, true), legacy',
    { to: C.ctf, data: operator(C.negRiskAdapter), type: 0 },
    'approve-ctf-operator',
  ),
  allowed(
    'CTF setApprovalForAll(NegRiskCtfCollateralAdapter, false) is a revocation',
    { to: C.ctf, data: operator(C.negRiskCtfCollateralAdapter, false), type: 0 },
    'revoke-ctf-operator',
  ),
  // ---- allowed: USDC approvals of the onramp ---------------------------------------------------
  allowed(
    'USDC.e approve(CollateralOnramp, max), type 2',
    { to: C.usdcBridged, data: approve(C.collateralOnramp) },
    'approve-onramp',
  ),
  allowed(
    'native USDC approve(CollateralOnramp, max), legacy',
    { to: C.usdcNative, data: approve(C.collateralOnramp), type: 0 },
    'approve-onramp',
  ),
  // ---- allowed: redemptions ---------------------------------------------------------------------
  allowed(
    'redeem on CtfCollateralAdapter (pUSD), type 2',
    { to: C.ctfCollateralAdapter, data: redeem4(C.pusd) },
    'redeem',
  ),
  allowed(
    'redeem on NegRiskCtfCollateralAdapter (pUSD), legacy',
    { to: C.negRiskCtfCollateralAdapter, data: redeem4(C.pusd), type: 0 },
    'redeem',
  ),
  allowed(
    'redeem on the CTF directly (USDC.e), legacy',
    { to: C.ctf, data: redeem4(C.usdcBridged), type: 0 },
    'redeem',
  ),
  allowed(
    'redeem on the NegRiskAdapter [yes, no], type 2',
    { to: C.negRiskAdapter, data: redeem2([5_000_000n, 0n]) },
    'redeem',
  ),
  {
    name: 'an allowed transaction without the 0x prefix',
    raw: async () => (await sign({ to: C.pusd, data: approve(C.ctfExchangeV2) })).slice(2),
    expect: { kind: 'approve-collateral' },
  },
  {
    name: 'an EIP-1559 approval with an access list (gas only)',
    raw: () =>
      LINKED.signTransaction({
        ...request({ to: C.pusd, data: approve(C.negRiskExchangeV2) }),
        accessList: [{ address: C.pusd, storageKeys: [ZERO32] }],
      }),
    expect: { kind: 'approve-collateral' },
  },

  // ---- refused: what moves funds ---------------------------------------------------------------
  refusedCall(
    'approve on an unknown contract',
    { to: ATTACKER, data: approve(C.ctfExchangeV2) },
    'unknown_contract',
  ),
  refusedCall(
    'pUSD transfer',
    { to: C.pusd, data: call('transfer', [ATTACKER, 1_000_000n]) },
    'transfer_not_allowed',
  ),
  refusedCall(
    'USDC.e transfer, legacy',
    { to: C.usdcBridged, data: call('transfer', [ATTACKER, 1n]), type: 0 },
    'transfer_not_allowed',
  ),
  refusedCall(
    'pUSD transferFrom',
    { to: C.pusd, data: call('transferFrom', [LINKED.address, ATTACKER, 1n]) },
    'transfer_from_not_allowed',
  ),
  refusedCall(
    'CTF safeTransferFrom',
    { to: C.ctf, data: call('safeTransferFrom', [LINKED.address, ATTACKER, 1n, 1n, '0x']) },
    'safe_transfer_not_allowed',
  ),
  refusedCall(
    'CTF safeBatchTransferFrom',
    { to: C.ctf, data: call('safeBatchTransferFrom', [LINKED.address, ATTACKER, [1n], [1n], '0x']) },
    'safe_batch_transfer_not_allowed',
  ),
  refusedCall(
    'pUSD increaseAllowance(Exchange V2) — even a known spender',
    { to: C.pusd, data: call('increaseAllowance', [C.ctfExchangeV2, 1n]) },
    'increase_allowance_not_allowed',
  ),
  refusedCall(
    'pUSD permit',
    {
      to: C.pusd,
      data: call('permit', [LINKED.address, ATTACKER, MaxUint256, MaxUint256, 27, ZERO32, ZERO32]),
    },
    'permit_not_allowed',
  ),
  refusedCall('pUSD approve(attacker, max)', { to: C.pusd, data: approve(ATTACKER) }, 'unknown_spender'),
  refusedCall(
    'pUSD approve(retired V1 exchange)',
    { to: C.pusd, data: approve(C.ctfExchangeV1), type: 0 },
    'unknown_spender',
  ),
  refusedCall(
    'pUSD approve(ExchangeV3): Protocol-V2 markets unsupported',
    { to: C.pusd, data: approve(C.exchangeV3) },
    'unknown_spender',
  ),
  refusedCall(
    'USDC.e approve(Exchange V2): V1-era approval',
    { to: C.usdcBridged, data: approve(C.ctfExchangeV2) },
    'unknown_spender',
  ),
  refusedCall('pUSD approve(CTF itself)', { to: C.pusd, data: approve(C.ctf) }, 'unknown_spender'),
  refusedCall(
    'CTF setApprovalForAll(attacker, true)',
    { to: C.ctf, data: operator(ATTACKER) },
    'unknown_operator',
  ),
  refusedCall(
    'CTF setApprovalForAll(AutoRedeemOperator, true)',
    { to: C.ctf, data: operator(C.autoRedeemOperator) },
    'unknown_operator',
  ),
  refusedCall(
    'a contract creation',
    { to: null, data: '0x6080604052348015600f57600080fd5b50' },
    'contract_creation',
  ),
  refusedCall(
    'pUSD approve carrying 1 wei of POL',
    { to: C.pusd, data: approve(C.ctfExchangeV2), value: 1n },
    'value_transfer',
  ),
  refusedCall(
    'a plain POL transfer to someone',
    { to: ATTACKER, data: '0x', value: 10n ** 18n, type: 0 },
    'value_transfer',
  ),
  // ---- refused: chain, signature, sender, encoding ---------------------------------------------
  refusedCall(
    'signed for Ethereum mainnet (1)',
    { to: C.pusd, data: approve(C.ctfExchangeV2), chainId: 1n },
    'wrong_chain',
  ),
  refusedCall(
    'signed for Amoy (80002), legacy',
    { to: C.pusd, data: approve(C.ctfExchangeV2), chainId: 80002n, type: 0 },
    'wrong_chain',
  ),
  refusedCall(
    'legacy without chain id (pre-EIP-155)',
    { to: C.pusd, data: approve(C.ctfExchangeV2), chainId: null, type: 0 },
    'no_replay_protection',
  ),
  refusedCall(
    "someone else's wallet",
    { to: C.pusd, data: approve(C.ctfExchangeV2), signer: STRANGER },
    'sender_mismatch',
  ),
  refused(
    'tampered signature: r = 0',
    async () =>
      editSignature(await sign({ to: C.pusd, data: approve(C.ctfExchangeV2) }), (s) => ({ ...s, r: 0n })),
    'bad_signature',
  ),
  refused(
    'tampered signature: r ≥ n',
    async () =>
      editSignature(await sign({ to: C.pusd, data: approve(C.ctfExchangeV2), type: 0 }), (s) => ({
        ...s,
        r: SECP256K1_N,
      })),
    'bad_signature',
  ),
  refused(
    'malleated signature: s → n − s (EIP-2 high s, same signer)',
    async () =>
      editSignature(await sign({ to: C.pusd, data: approve(C.ctfExchangeV2) }), (s) => ({
        ...s,
        s: SECP256K1_N - s.s,
        yParity: 1 - s.yParity,
      })),
    'bad_signature',
  ),
  // r + 1 recovers some other key (or none), never the linked wallet.
  refused(
    'tampered signature: r + 1',
    async () =>
      editSignature(await sign({ to: C.pusd, data: approve(C.ctfExchangeV2), type: 0 }), (s) => ({
        ...s,
        r: s.r + 1n,
      })),
    ['sender_mismatch', 'bad_signature'],
  ),
  refused(
    'tampered calldata after signing',
    async () =>
      (await sign({ to: C.pusd, data: approve(C.ctfExchangeV2) })).replace(
        'e111180000d2663c0091e4f400237545b87b996b',
        word(ATTACKER).slice(24),
      ),
    'sender_mismatch',
  ),
  refused('malformed hex', () => '0xnot-a-transaction', 'malformed_tx'),
  refused('odd-length hex', () => '0x02f', 'malformed_tx'),
  refused('truncated RLP', () => REFERENCE_RAW.slice(0, -2), 'malformed_tx'),
  refused('bytes appended after the RLP', () => `${REFERENCE_RAW}00`, 'malformed_tx'),
  refused(
    'an unsigned transaction',
    () => Transaction.from(request({ to: C.pusd, data: approve(C.ctfExchangeV2) })).unsignedSerialized,
    'unsigned_tx',
  ),
  refused('more than 16 KiB', () => `0x${'ab'.repeat(16_385)}`, 'tx_too_large'),
  refusedCall(
    'approve with trailing calldata',
    { to: C.pusd, data: `${approve(C.ctfExchangeV2)}deadbeef` },
    'calldata_not_canonical',
  ),
  refusedCall(
    'setApprovalForAll with a dirty bool (2)',
    { to: C.ctf, data: `${operator(C.ctfExchangeV2).slice(0, -2)}02` },
    'calldata_not_canonical',
  ),
  refusedCall(
    'approve with a spender word carrying high bits',
    { to: C.pusd, data: `0x095ea7b3${'ff'.repeat(12)}${word(C.ctfExchangeV2).slice(24)}${word('0x01')}` },
    'bad_arguments',
  ),
  refusedCall(
    'approve with one argument only',
    { to: C.pusd, data: `0x095ea7b3${word(C.ctfExchangeV2)}` },
    'bad_arguments',
  ),
  // ---- refused: transaction types --------------------------------------------------------------
  refusedCall(
    'EIP-2930 (type 1) approval',
    { to: C.pusd, data: approve(C.ctfExchangeV2), type: 1 },
    'tx_type_not_allowed',
  ),
  refused(
    'EIP-7702 (type 4) approval delegating the wallet',
    () =>
      LINKED.signTransaction({
        ...request({ to: C.pusd, data: approve(C.ctfExchangeV2) }),
        type: 4,
        authorizationList: [LINKED.authorizeSync({ address: ATTACKER, nonce: 8, chainId: 137 })],
      }),
    'tx_type_not_allowed',
  ),
  refused(
    'EIP-4844 (type 3) blob transaction',
    () =>
      LINKED.signTransaction({
        ...request({ to: C.pusd, data: approve(C.ctfExchangeV2) }),
        type: 3,
        maxFeePerBlobGas: 1n,
        blobVersionedHashes: [`0x01${'22'.repeat(31)}`],
      }),
    'tx_type_not_allowed',
  ),
  refused('an unknown type byte (0x05)', () => `0x05${REFERENCE_RAW.slice(4)}`, 'tx_type_not_allowed'),
  // ---- refused: known contracts, other functions -----------------------------------------------
  refusedCall('no calldata to pUSD', { to: C.pusd, data: '0x' }, 'no_calldata'),
  refusedCall('a 2-byte selector', { to: C.pusd, data: '0x095e' }, 'function_not_allowed'),
  refusedCall(
    'CTF splitPosition',
    { to: C.ctf, data: call('splitPosition', [C.usdcBridged, ZERO32, CONDITION, [1, 2], 1n]) },
    'function_not_allowed',
  ),
  refusedCall(
    'mergePositions on the collateral adapter',
    { to: C.ctfCollateralAdapter, data: call('mergePositions', [C.pusd, ZERO32, CONDITION, [1, 2], 1n]) },
    'function_not_allowed',
  ),
  refusedCall(
    'NegRiskAdapter convertPositions',
    { to: C.negRiskAdapter, data: call('convertPositions', [CONDITION, 1n, 1n]) },
    'function_not_allowed',
  ),
  refusedCall(
    'approve sent to the CTF (an ERC-1155)',
    { to: C.ctf, data: approve(C.ctfExchangeV2) },
    'function_not_allowed',
  ),
  refusedCall(
    'onramp wrap: neither approval nor redemption',
    { to: C.collateralOnramp, data: call('wrap', [C.usdcBridged, LINKED.address, 1n]) },
    'contract_not_allowed',
  ),
  refusedCall(
    'redeemPositions sent to the exchange',
    { to: C.ctfExchangeV2, data: redeem4(C.pusd) },
    'contract_not_allowed',
  ),
  refusedCall(
    'redeem on the CTF paying pUSD (wrong collateral)',
    { to: C.ctf, data: redeem4(C.pusd) },
    'bad_redeem_arguments',
  ),
  refusedCall(
    'redeem on the adapter with indexSets [1]',
    { to: C.ctfCollateralAdapter, data: redeem4(C.pusd, [1]) },
    'bad_redeem_arguments',
  ),
  refusedCall(
    'redeem on the adapter under a non-root parent',
    { to: C.ctfCollateralAdapter, data: redeem4(C.pusd, [1, 2], CONDITION) },
    'bad_redeem_arguments',
  ),
  refusedCall(
    'redeem on the adapter of condition 0',
    { to: C.negRiskCtfCollateralAdapter, data: redeem4(C.pusd, [1, 2], ZERO32, ZERO32) },
    'bad_redeem_arguments',
  ),
  // ---- refused: anything but the client's approvals around Exchange B and the fee escrow --------
  refusedCall(
    'pUSD transfer to NegRisk Exchange B',
    { to: C.pusd, data: call('transfer', [C.negRiskExchangeV2B, 1_000_000n]) },
    'transfer_not_allowed',
  ),
  refusedCall(
    'pUSD transfer to the fee escrow, legacy',
    { to: C.pusd, data: call('transfer', [C.feeEscrowV2, 1n]), type: 0 },
    'transfer_not_allowed',
  ),
  refusedCall(
    'pUSD transferFrom to the fee escrow',
    { to: C.pusd, data: call('transferFrom', [LINKED.address, C.feeEscrowV2, 1n]) },
    'transfer_from_not_allowed',
  ),
  refusedCall(
    'pUSD increaseAllowance(NegRisk Exchange B)',
    { to: C.pusd, data: call('increaseAllowance', [C.negRiskExchangeV2B, 1n]) },
    'increase_allowance_not_allowed',
  ),
  refusedCall(
    'CTF safeTransferFrom to NegRisk Exchange B',
    { to: C.ctf, data: call('safeTransferFrom', [LINKED.address, C.negRiskExchangeV2B, 1n, 1n, '0x']) },
    'safe_transfer_not_allowed',
  ),
  refusedCall(
    'CTF setApprovalForAll(fee escrow): it collects pUSD, never positions',
    { to: C.ctf, data: operator(C.feeEscrowV2) },
    'unknown_operator',
  ),
  refusedCall(
    'USDC.e approve(NegRisk Exchange B)',
    { to: C.usdcBridged, data: approve(C.negRiskExchangeV2B) },
    'unknown_spender',
  ),
  refusedCall(
    'native USDC approve(fee escrow), legacy',
    { to: C.usdcNative, data: approve(C.feeEscrowV2), type: 0 },
    'unknown_spender',
  ),
  refusedCall(
    'approve sent to NegRisk Exchange B itself',
    { to: C.negRiskExchangeV2B, data: approve(C.negRiskExchangeV2B) },
    'contract_not_allowed',
  ),
  refusedCall(
    'any call to the fee escrow',
    { to: C.feeEscrowV2, data: call('transfer', [ATTACKER, 1n]) },
    'contract_not_allowed',
  ),
];

const tally = { tried: 0, refused: 0, allowed: 0, forbiddenRelayed: 0 };
const codesSeen = new Set<string>();
const builderTally = { signed: 0, allowed: 0 };

describe('Relay allow-list for client-signed Polygon transactions #unit', () => {
  after(() => {
    console.log(
      `      allow-list table: ${tally.tried} tried, ${tally.refused} refused, ${tally.allowed} allowed, ${tally.forbiddenRelayed} forbidden relayed; builder round trip: ${builderTally.signed} signed, ${builderTally.allowed} allowed`,
    );
  });

  it('when the constants are recomputed, then the selectors are id(signature) and the addresses are checksummed', () => {
    for (const f of [
      ...Object.values(ALLOWED_FUNCTIONS),
      ...Object.values(FORBIDDEN_FUNCTIONS),
      ...Object.values(OTHER_KNOWN_FUNCTIONS),
    ])
      assert.equal(id(f.signature).slice(0, 10), f.selector, f.signature);
    for (const [name, address] of Object.entries(C)) assert.equal(getAddress(address), address, name);
  });

  it('when the reference vector is checked, then it parses to the published fields', () => {
    const r = checkRelayableTransaction(REFERENCE_RAW, { sender: LINKED.address.toLowerCase() });
    assert.ok(r.ok, JSON.stringify(r));
    assert.deepEqual(
      { ...r.tx, hash: `${r.tx.hash.slice(0, 10)}…${r.tx.hash.slice(-4)}` },
      {
        raw: REFERENCE_RAW.toLowerCase(),
        hash: '0x0801ca58…a4bb',
        from: LINKED.address,
        to: C.pusd,
        nonce: 7,
        chainId: 137,
        type: 2,
      },
    );
    assert.deepEqual(r.call, {
      contract: 'pusd',
      signature: 'approve(address,uint256)',
      spender: C.ctfExchangeV2,
      amount: MaxUint256.toString(),
    });
  });

  it(`when ${TABLE.length} crafted transactions are checked, then exactly the allowed kinds pass and each forbidden one is refused with its code`, async () => {
    assert.ok(TABLE.length >= 30);
    const failures: string[] = [];
    for (const row of TABLE) {
      const raw = await row.raw();
      const r = checkRelayableTransaction(raw, { sender: LINKED.address });
      tally.tried += 1;
      if (r.ok) tally.allowed += 1;
      else tally.refused += 1;
      if ('kind' in row.expect) {
        if (!r.ok || r.kind !== row.expect.kind) failures.push(`${row.name}: ${JSON.stringify(r)}`);
        continue;
      }
      if (r.ok) {
        tally.forbiddenRelayed += 1;
        failures.push(`${row.name}: ALLOWED as ${r.kind}`);
        continue;
      }
      codesSeen.add(r.code);
      const codes = ([] as RelayRefusalCode[]).concat(row.expect.code);
      if (!codes.includes(r.code)) failures.push(`${row.name}: ${r.code} (${r.error})`);
      if (!r.fix || !r.error) failures.push(`${row.name}: no error/fix text`);
    }
    assert.deepEqual(failures, []);
    assert.equal(tally.forbiddenRelayed, 0);
    assert.deepEqual(
      [...codesSeen].sort(),
      [...RELAY_REFUSAL_CODES].sort(),
      'every refusal code is exercised',
    );
  });

  it('when every approval the builder produces is signed, legacy and EIP-1559, then the relay accepts it as the same kind', async () => {
    const all = [...REQUIRED_APPROVALS, ...ONRAMP_APPROVALS].map((a) => a.key);
    assert.equal(REQUIRED_APPROVALS.length, 12);
    const txs = approvalTransactions(LINKED.address.toLowerCase(), all);
    assert.equal(txs.length, all.length);
    for (const unsigned of [
      ...txs,
      redemptionTransaction(LINKED.address, { conditionId: CONDITION, negRisk: false }),
      redemptionTransaction(LINKED.address, { conditionId: CONDITION, negRisk: true }),
    ])
      for (const type of [0, 2] as const) {
        assert.equal(unsigned.from, LINKED.address);
        const raw = await sign({
          to: unsigned.to,
          data: unsigned.data,
          type,
          chainId: BigInt(unsigned.chainId),
        });
        const r = checkRelayableTransaction(raw, { sender: LINKED.address });
        assert.ok(
          r.ok && r.kind === unsigned.kind,
          `${unsigned.to} ${unsigned.data.slice(0, 10)}: ${JSON.stringify(r)}`,
        );
        builderTally.signed += 1;
        if (r.ok) builderTally.allowed += 1;
      }
  });

  it("when the official client's 12 approvals are signed, legacy and EIP-1559, then each is relayed, and they are exactly the required set", async () => {
    assert.equal(CLIENT_APPROVALS.length, 12);
    for (const a of CLIENT_APPROVALS)
      for (const type of [0, 2] as const) {
        const r = checkRelayableTransaction(await sign({ to: a.to, data: a.data, type }), {
          sender: LINKED.address,
        });
        assert.ok(r.ok, `${a.key} type ${type}: ${JSON.stringify(r)}`);
        assert.equal(r.kind, a.to === CLIENT_CTF ? 'approve-ctf-operator' : 'approve-collateral');
      }
    assert.deepEqual(
      REQUIRED_APPROVALS.map((a) => a.key).sort(),
      CLIENT_APPROVALS.map((a) => a.key).sort(),
      'all_set asks for the client set, no more and no less',
    );
    // What the service hands out for them is byte for byte what the client signs.
    const built = approvalTransactions(
      LINKED.address,
      CLIENT_APPROVALS.map((a) => a.key),
    );
    assert.deepEqual(
      built.map((t) => [t.to, t.data]).sort(),
      CLIENT_APPROVALS.map((a) => [a.to, a.data]).sort(),
    );
  });

  it('when approvals are asked for a subset of keys, then only those are built, in a stable order', () => {
    const txs = approvalTransactions(LINKED.address, [
      approvalKey('ctf', C.negRiskExchangeV2),
      approvalKey('pusd', C.ctfExchangeV2).toUpperCase(),
    ]);
    assert.deepEqual(
      txs.map((t) => [t.to, t.kind]),
      [
        [C.pusd, 'approve-collateral'],
        [C.ctf, 'approve-ctf-operator'],
      ],
    );
    assert.equal(
      txs[0]!.data,
      `0x095ea7b3${word(C.ctfExchangeV2)}${'f'.repeat(64)}`,
      'max-uint approval of Exchange V2',
    );
    assert.deepEqual(approvalTransactions(LINKED.address, []), []);
    assert.throws(() => approvalTransactions(LINKED.address, [approvalKey('pusd', ATTACKER)]), RangeError);
    assert.throws(
      () => redemptionTransaction(LINKED.address, { conditionId: ZERO32, negRisk: false }),
      RangeError,
    );
  });

  it('when the redemption builder encodes a condition, then the calldata is the §8.4 layout', () => {
    const tx = redemptionTransaction(LINKED.address, { conditionId: CONDITION, negRisk: false });
    const expected = `0x01b7037c${AbiCoder.defaultAbiCoder()
      .encode(['address', 'bytes32', 'bytes32', 'uint256[]'], [C.pusd, ZERO32, CONDITION, [1, 2]])
      .slice(2)}`;
    assert.equal(tx.data, expected);
    assert.equal(tx.to, C.ctfCollateralAdapter);
  });
});
