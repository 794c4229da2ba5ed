import assert from 'node:assert/strict';
import {
  Interface,
  JsonRpcProvider,
  MaxUint256,
  Network,
  Wallet,
  ZeroAddress,
  ZeroHash,
  zeroPadValue,
  type TransactionResponse,
} from 'ethers';
import { CTF, ERC20, USDC_E } from './polygon/index.js';
import {
  CONTRACTS,
  depositWalletOf,
  startPolymarketEmulator,
  type PolymarketEmulator,
} from './polymarket/index.js';
import { eventsOf } from '../support/receipt-events.js';
import { emulatorAdmin } from '../support/venue-emulators.js';
import {
  BATCH_TYPES,
  relayedTransaction,
  relayer,
  relayerNonce,
  submitBatch,
  type RelayerCall,
} from '../support/relayer-client.js';

// Polymarket's relayer for deposit wallets, driven as the official relayer clients drive it
// (builder-relayer-client `deployDepositWallet` / `executeDepositWalletBatch`, polynode's Python
// port): builder HMAC headers on `POST /submit`, `GET /nonce`, then `GET /transaction` polled for
// the state and the `transactionHash`. Each submission the relayer accepts is a transaction of its
// operator to the deposit wallet factory on the emulated chain, and the receipt of a batch has the
// logs of the calls the wallet made, from the contracts that emitted them.

/** The factory's operator entry points (its verified source), written here independently of the emulator's. */
const FACTORY = new Interface([
  'function deploy(address[] _owners, bytes32[] _ids)',
  'function proxy((address wallet, uint256 nonce, uint256 deadline, (address target, uint256 value, bytes data)[] calls)[] _batches, bytes[] _signatures)',
]);

let emu: PolymarketEmulator;
let provider: JsonRpcProvider;

/** The emulator's control plane (`POST <adminUrl><path>`). */
const admin = (path: string, body?: unknown) => emulatorAdmin(emu.adminUrl, 'POST', path, body);

const relayed = (id: string) => relayedTransaction(emu.relayerUrl, id);
const nonceOf = (owner: Wallet) => relayerNonce(emu.relayerUrl, owner.address);
const deployed = async (wallet: string) =>
  (await relayer(emu.relayerUrl, 'GET', `/deployed?address=${wallet}&type=WALLET`)).body.deployed as boolean;
/** A batch for the owner's wallet at its nonce, on the emulator's clock. */
const batch = (owner: Wallet, calls: RelayerCall[], signer: Wallet = owner) =>
  submitBatch(emu.relayerUrl, owner, calls, { nowMs: emu.state.now(), signer });

/** `WALLET-CREATE` for `owner`: the relayer's answer. */
async function createWallet(owner: Wallet) {
  const res = await relayer(emu.relayerUrl, 'POST', '/submit', {
    type: 'WALLET-CREATE',
    from: owner.address,
    to: CONTRACTS.depositWalletFactory,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { transactionID: string; transactionHash: string; state: string };
}

const call = (target: string, data: string): RelayerCall => ({ target, value: '0', data });
const approveAdapter = () =>
  call(CONTRACTS.ctf, CTF.encodeFunctionData('setApprovalForAll', [CONTRACTS.ctfCollateralAdapter, true]));
const redeemOn = (conditionId: string) =>
  call(
    CONTRACTS.ctfCollateralAdapter,
    CTF.encodeFunctionData('redeemPositions', [CONTRACTS.pusd, ZeroHash, conditionId, [1, 2]]),
  );

function newMarket(): { conditionId: string; tokenIds: [string, string] } {
  return emu.state.createEvent({ title: `Relayer test ${Math.random()}` }).markets[0]!;
}

describe('Polymarket relayer emulator: deposit-wallet submissions are transactions on the emulated chain', () => {
  before(async () => {
    emu = await startPolymarketEmulator();
    const network = new Network('polygon-emulated', 137n);
    provider = new JsonRpcProvider(emu.rpcUrl, network, { staticNetwork: network, cacheTimeout: -1 });
  });
  after(async () => {
    provider.destroy();
    await emu.close();
  });
  beforeEach(async () => {
    await admin('/reset');
    await admin('/polygon/mining', { mode: 'instant' });
  });

  it('when a wallet is created and a redemption batch relayed, then each is a mined transaction of the relayer to the factory, and the batch’s receipt has the redemption’s logs with the deposit wallet as holder', async () => {
    const owner = Wallet.createRandom() as unknown as Wallet;
    const dw = depositWalletOf(owner.address);
    const created = await createWallet(owner);
    assert.equal(created.state, 'STATE_NEW');
    assert.match(created.transactionHash, /^0x[0-9a-f]{64}$/);
    const deployTx = (await provider.getTransaction(created.transactionHash))!;
    assert.equal(deployTx.to, CONTRACTS.depositWalletFactory);
    assert.notEqual(deployTx.from, owner.address, 'the relayer signs and pays, not the owner');
    assert.deepEqual(FACTORY.decodeFunctionData('deploy', deployTx.data).toArray(true), [
      [owner.address],
      [zeroPadValue(owner.address, 32)],
    ]);
    const createdRow = await relayed(created.transactionID);
    assert.deepEqual(
      [createdRow.state, createdRow.transactionHash, createdRow.type, createdRow.proxyAddress],
      ['STATE_CONFIRMED', created.transactionHash, 'WALLET-CREATE', dw],
    );
    assert.equal(await deployed(dw), true);

    const { conditionId, tokenIds } = newMarket();
    await admin(`/wallets/${dw}/fund`, { tokens: { [tokenIds[0]]: 10, [tokenIds[1]]: 4 } });
    await admin(`/markets/${conditionId}/resolve`, { outcome: 'yes' });
    const calls = [approveAdapter(), redeemOn(conditionId)];
    const sent = await batch(owner, calls);
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.state, 'STATE_NEW');
    const hash = sent.body.transactionHash as string;
    const tx = (await provider.getTransaction(hash)) as TransactionResponse;
    assert.deepEqual([tx.from, tx.to], [deployTx.from, CONTRACTS.depositWalletFactory]);
    const [batches, signatures] = FACTORY.decodeFunctionData('proxy', tx.data).toArray(true) as [
      unknown[],
      string[],
    ];
    assert.deepEqual(batches, [[dw, 0n, BigInt(sent.deadline), calls.map((c) => [c.target, 0n, c.data])]]);
    assert.deepEqual(signatures, [sent.signature]);

    const receipt = (await provider.getTransactionReceipt(hash))!;
    assert.equal(receipt.status, 1);
    const adapter = CONTRACTS.ctfCollateralAdapter;
    const ids = tokenIds.map(BigInt);
    const [paid, lost] = [10_000_000n, 4_000_000n];
    // The wallet's own calls, logged by the contracts they reached: the CTF approval, then the
    // collateral adapter's redemption exactly as when an EOA sends it, the holder being the wallet.
    assert.deepEqual(eventsOf(receipt), [
      [CONTRACTS.ctf, 'ApprovalForAll', [dw, adapter, true]],
      [CONTRACTS.ctf, 'TransferBatch', [adapter, dw, adapter, ids, [paid, lost]]],
      [CONTRACTS.ctf, 'TransferSingle', [adapter, adapter, ZeroAddress, ids[0], paid]],
      [CONTRACTS.ctf, 'TransferSingle', [adapter, adapter, ZeroAddress, ids[1], lost]],
      [CONTRACTS.usdcE, 'Transfer', [CONTRACTS.ctf, adapter, paid]],
      [CONTRACTS.ctf, 'PayoutRedemption', [adapter, USDC_E, ZeroHash, conditionId, [1n, 2n], paid]],
      [CONTRACTS.usdcE, 'Transfer', [adapter, CONTRACTS.pusd, paid]],
      [CONTRACTS.pusd, 'Transfer', [ZeroAddress, dw, paid]],
      [CONTRACTS.pusd, 'Wrapped', [adapter, USDC_E, dw, paid]],
    ]);
    assert.equal(emu.state.ledger.pusdBalance(dw), paid);
    assert.equal(emu.state.ledger.tokenBalance(dw, tokenIds[0]), 0n);
    const row = await relayed(sent.body.transactionID);
    assert.deepEqual(
      [row.state, row.transactionHash, row.type, row.proxyAddress, row.from, row.nonce],
      ['STATE_CONFIRMED', hash, 'WALLET', dw, owner.address, '0'],
    );
    assert.equal(await nonceOf(owner), '1');
  });

  it('when blocks are mined by hand, then a submission stays STATE_NEW with no receipt and nothing done until its block', async () => {
    await admin('/polygon/mining', { mode: 'manual' });
    const owner = Wallet.createRandom() as unknown as Wallet;
    const dw = depositWalletOf(owner.address);
    const created = await createWallet(owner);
    assert.equal((await relayed(created.transactionID)).state, 'STATE_NEW');
    assert.equal(await deployed(dw), false);
    await admin('/polygon/mine');
    assert.equal((await relayed(created.transactionID)).state, 'STATE_CONFIRMED');

    const approve = call(
      CONTRACTS.pusd,
      ERC20.encodeFunctionData('approve', [CONTRACTS.exchangeV2, MaxUint256]),
    );
    const sent = await batch(owner, [approve]);
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const hash = sent.body.transactionHash as string;
    const pending = await relayed(sent.body.transactionID);
    assert.equal(pending.state, 'STATE_NEW');
    assert.equal(await provider.getTransactionReceipt(hash), null);
    assert.notEqual(await provider.getTransaction(hash), null, 'the node knows it: pending');
    assert.equal(emu.state.ledger.allowance(dw, CONTRACTS.exchangeV2), 0n);
    assert.equal(await nonceOf(owner), '0');

    await admin('/polygon/mine');
    const mined = await relayed(sent.body.transactionID);
    assert.equal(mined.state, 'STATE_CONFIRMED');
    assert.equal((await provider.getTransactionReceipt(hash))!.status, 1);
    assert.equal(emu.state.ledger.allowance(dw, CONTRACTS.exchangeV2), MaxUint256);
    assert.equal(await nonceOf(owner), '1');
  });

  it('when a call of a batch reverts, then the batch is mined reverted: STATE_FAILED with that call’s reason, none of its calls done, the nonce unchanged', async () => {
    const owner = Wallet.createRandom() as unknown as Wallet;
    const dw = depositWalletOf(owner.address);
    await createWallet(owner);
    const { conditionId, tokenIds } = newMarket();
    await admin(`/wallets/${dw}/fund`, { tokens: { [tokenIds[0]]: 10 } });
    // Not resolved yet: the redemption (call 1) reverts, and the approval before it is undone.
    const sent = await batch(owner, [approveAdapter(), redeemOn(conditionId)]);
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    const receipt = (await provider.getTransactionReceipt(sent.body.transactionHash))!;
    assert.equal(receipt.status, 0);
    assert.deepEqual(receipt.logs, []);
    const row = await relayed(sent.body.transactionID);
    assert.deepEqual(
      [row.state, row.errorMsg],
      ['STATE_FAILED', 'call 1 reverted: result for condition not received yet'],
    );
    assert.equal(emu.state.ledger.isApprovedForAll(dw, CONTRACTS.ctfCollateralAdapter), false);
    assert.equal(emu.state.ledger.tokenBalance(dw, tokenIds[0]), 10_000_000n);
    assert.equal(await nonceOf(owner), '0');
  });

  it('when the relayer refuses a submission, then nothing reaches the chain; and when anyone else calls the factory, it reverts, even with a batch the owner signed', async () => {
    const owner = Wallet.createRandom() as unknown as Wallet;
    const dw = depositWalletOf(owner.address);
    await createWallet(owner);
    const head = await provider.getBlockNumber();
    const approve = call(CONTRACTS.pusd, ERC20.encodeFunctionData('approve', [CONTRACTS.exchangeV2, 1n]));
    const forged = await batch(owner, [approve], Wallet.createRandom() as unknown as Wallet);
    assert.deepEqual([forged.status, forged.body], [400, { error: 'invalid signature' }]);
    assert.equal(await provider.getBlockNumber(), head, 'no transaction was sent');

    // The owner's valid batch, sent to the factory by the owner itself: OnlyOperator.
    const ownerEoa = new Wallet(owner.privateKey, provider);
    await admin(`/polygon/accounts/${ownerEoa.address}/fund`, { pol: 1 });
    const deadline = BigInt(Math.floor(emu.state.now() / 1000) + 240);
    const signature = await owner.signTypedData(
      { name: 'DepositWallet', version: '1', chainId: 137, verifyingContract: dw },
      BATCH_TYPES,
      { wallet: dw, nonce: 0n, deadline, calls: [{ ...approve, value: 0n }] },
    );
    const direct = await ownerEoa.sendTransaction({
      to: CONTRACTS.depositWalletFactory,
      data: FACTORY.encodeFunctionData('proxy', [
        [[dw, 0n, deadline, [[approve.target, 0n, approve.data]]]],
        [signature],
      ]),
      gasLimit: 300_000,
    });
    assert.equal((await provider.getTransactionReceipt(direct.hash))!.status, 0);
    assert.equal(emu.state.ledger.allowance(dw, CONTRACTS.exchangeV2), 0n);
    assert.equal(await nonceOf(owner), '0');
  });
});
