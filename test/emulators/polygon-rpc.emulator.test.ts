import assert from 'node:assert/strict';
import { ApiError, AssetType, Chain, ClobClient, OrderType, Side } from '@polymarket/clob-client-v2';
import {
  Contract,
  MaxUint256,
  Transaction,
  Wallet,
  ZeroAddress,
  ZeroHash,
  parseEther,
  parseUnits,
  type TransactionReceipt,
  type TransactionRequest,
} from 'ethers';
import { createWalletClient, custom } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { CTF, ERC20, NEG_RISK_ADAPTER, USDC_E } from './polygon/index.js';
import { CONTRACTS } from './polymarket/index.js';
import { eventsOf } from '../support/receipt-events.js';
import { useEmulatedPolygon, type EmulatedPolygon } from '../support/emulated-chain-clients.js';

// The Polygon JSON-RPC stand-in, driven by ethers v6 the way a client or the service would use a
// real node: chain id, balances, signed approvals and redemptions, receipts, the transaction-pool
// refusals. Its state is the Polymarket emulator's: an approval mined here is an allowance the
// emulated CLOB honours, and a redemption pays out of the same ledger.

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The suite’s emulator and its ethers provider (useEmulatedPolygon). */
let chain: EmulatedPolygon;

async function admin(path: string, body?: unknown, method = 'POST'): Promise<Json> {
  const res = await fetch(`${chain.emu.adminUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `admin ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** A raw JSON-RPC exchange (to assert the exact error objects a node answers); a string is sent as is. */
async function rpc(payload: unknown): Promise<Json> {
  const res = await fetch(chain.emu.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof payload === 'string' ? payload : JSON.stringify(payload),
  });
  assert.equal(res.status, 200);
  return res.json();
}
const call = (method: string, params: unknown[] = []) => rpc({ jsonrpc: '2.0', id: 1, method, params });

/** A funded wallet (POL for gas) connected to the emulator. */
async function newWallet(pol = 1): Promise<Wallet> {
  const wallet = new Wallet(Wallet.createRandom().privateKey, chain.provider);
  if (pol > 0) await admin(`/polygon/accounts/${wallet.address}/fund`, { pol });
  return wallet;
}

/** A signed raw transaction with explicit fields (type 2 unless gasPrice is given). */
async function signed(wallet: Wallet, tx: TransactionRequest): Promise<string> {
  const base: TransactionRequest =
    tx.gasPrice !== undefined
      ? { type: 0 }
      : { type: 2, maxFeePerGas: parseUnits('100', 'gwei'), maxPriorityFeePerGas: parseUnits('30', 'gwei') };
  return wallet.signTransaction({ chainId: 137, gasLimit: 100_000, value: 0, data: '0x', ...base, ...tx });
}

const mine = (blocks = 1) => admin('/polygon/mine', { blocks });
const manualMining = () => admin('/polygon/mining', { mode: 'manual' });
const approveData = (spender: string, amount: bigint) =>
  ERC20.encodeFunctionData('approve', [spender, amount]);
const pusdOf = async (a: string) => BigInt((await admin(`/wallets/${a}`, undefined, 'GET')).pusd * 1e6);

function newMarket(negRisk = false): { conditionId: string; tokenIds: [string, string] } {
  const { markets } = chain.emu.state.createEvent({
    title: `Chain test ${Math.random()}`,
    ...(negRisk ? { outcomes: ['A', 'B', 'C'] } : {}),
  });
  return markets[0]!;
}

describe('Polygon JSON-RPC emulator (ethers v6 against the shared Polymarket ledger)', () => {
  chain = useEmulatedPolygon();

  it('when a client asks for chain id, network and head, then it gets Polygon (137) — single and batched', async () => {
    assert.equal((await call('eth_chainId')).result, '0x89');
    assert.equal((await call('net_version')).result, '137');
    assert.ok(Number((await call('eth_blockNumber')).result) > 0);
    const batch = await rpc([
      { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
      { jsonrpc: '2.0', id: 2, method: 'eth_gasPrice', params: [] },
      { jsonrpc: '2.0', id: 3, method: 'eth_sign', params: [] },
    ]);
    assert.equal(batch.length, 3);
    assert.deepEqual(batch[0], { jsonrpc: '2.0', id: 1, result: '0x89' });
    assert.equal(BigInt(batch[1].result), parseUnits('60', 'gwei'));
    assert.equal(batch[2].error.code, -32601, 'unknown method: method not found');
    assert.equal((await rpc('{nope')).error.code, -32700);
    const fees = await chain.provider.getFeeData();
    assert.equal(fees.maxPriorityFeePerGas, parseUnits('30', 'gwei'));
    assert.equal(fees.maxFeePerGas, parseUnits('90', 'gwei'));
    const history = (await call('eth_feeHistory', ['0x4', 'latest', [50]])).result;
    assert.equal(history.baseFeePerGas.length, 5);
    assert.equal(history.reward.length, 4);
  });

  it('when the admin funds POL, then eth_getBalance shows it', async () => {
    const wallet = Wallet.createRandom();
    assert.equal(await chain.provider.getBalance(wallet.address), 0n);
    await admin(`/polygon/accounts/${wallet.address}/fund`, { pol: 2.5 });
    assert.equal(await chain.provider.getBalance(wallet.address), parseEther('2.5'));
  });

  it('when a wallet approves pUSD to the V2 exchange with ethers, then it is pending, then mined with status 1, read back by eth_call and honoured by the CLOB', async () => {
    await manualMining();
    const wallet = await newWallet();
    await admin(`/wallets/${wallet.address}/fund`, { pusd: 100 });
    const signer = createWalletClient({
      account: privateKeyToAccount(wallet.privateKey as `0x${string}`),
      transport: custom({
        request: async () => {
          throw new Error('the CLOB client needs no RPC');
        },
      }),
    });
    const l1 = new ClobClient({ host: chain.emu.clobUrl, chain: Chain.POLYGON, signer });
    const creds = await l1.createOrDeriveApiKey();
    const clob = new ClobClient({
      host: chain.emu.clobUrl,
      chain: Chain.POLYGON,
      signer,
      creds,
      throwOnError: true,
    });
    const { tokenIds } = newMarket();
    const buy = () =>
      clob.createAndPostMarketOrder(
        { tokenID: tokenIds[0], amount: 5, side: Side.BUY, orderType: OrderType.FOK },
        undefined,
        OrderType.FOK,
      );
    await assert.rejects(
      buy(),
      (err: unknown) => err instanceof ApiError && /allowance/.test(String(err.message)),
    );

    const pusd = new Contract(CONTRACTS.pusd, ERC20, wallet);
    const tx = await pusd.getFunction('approve')(CONTRACTS.exchangeV2, MaxUint256);
    assert.equal(await chain.provider.getTransactionReceipt(tx.hash), null, 'pending until a block is mined');
    assert.equal((await chain.provider.getTransaction(tx.hash))?.blockNumber, null);
    assert.equal(await pusd.getFunction('allowance')(wallet.address, CONTRACTS.exchangeV2), 0n);
    await mine();
    const receipt = (await tx.wait()) as TransactionReceipt;
    assert.equal(receipt.status, 1);
    assert.equal(await pusd.getFunction('allowance')(wallet.address, CONTRACTS.exchangeV2), MaxUint256);
    assert.equal(await pusd.getFunction('balanceOf')(wallet.address), 100_000_000n);
    const gas: bigint = receipt.gasUsed * receipt.gasPrice;
    assert.equal(await chain.provider.getBalance(wallet.address), parseEther('1') - gas, 'gas paid in POL');
    assert.equal(await chain.provider.getTransactionCount(wallet.address), 1);

    const allowance = await clob.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    assert.equal(allowance.allowances[CONTRACTS.exchangeV2], MaxUint256.toString());
    const view = await admin(`/wallets/${wallet.address}`, undefined, 'GET');
    assert.equal(view.allowances[CONTRACTS.exchangeV2], MaxUint256.toString());
    const filled = await buy();
    assert.equal(filled.status, 'matched', 'the CLOB takes the buy it refused before');
  });

  it('when the emulator clock passes a block time, then a pending transaction is mined (interval mode)', async () => {
    // A long block time: wall-clock time during the test cannot produce the block by itself.
    await admin('/polygon/mining', { mode: 'interval', block_time_ms: 60_000 });
    const wallet = await newWallet();
    const raw = await signed(wallet, {
      to: CONTRACTS.pusd,
      nonce: 0,
      data: approveData(CONTRACTS.exchangeV2, 5n),
    });
    const hash = (await call('eth_sendRawTransaction', [raw])).result;
    assert.equal(hash, Transaction.from(raw).hash);
    assert.equal((await call('eth_getTransactionReceipt', [hash])).result, null);
    await admin('/clock', { advance_ms: 60_000 });
    const receipt = (await call('eth_getTransactionReceipt', [hash])).result;
    assert.equal(receipt.status, '0x1');
    assert.equal(receipt.logs.length, 1);
    const approval = ERC20.parseLog(receipt.logs[0]);
    assert.equal(approval?.name, 'Approval');
    assert.deepEqual([...approval!.args], [wallet.address, CONTRACTS.exchangeV2, 5n]);
    assert.equal(receipt.logs[0].address, CONTRACTS.pusd.toLowerCase());
    assert.equal(chain.emu.state.ledger.allowance(wallet.address, CONTRACTS.exchangeV2), 5n);
  });

  it('when nonces are reused, then the node answers nonce too low, already known and replacement transaction underpriced', async () => {
    await manualMining();
    const wallet = await newWallet();
    const first = await signed(wallet, {
      to: CONTRACTS.pusd,
      nonce: 0,
      data: approveData(CONTRACTS.exchangeV2, 1n),
    });
    assert.ok((await call('eth_sendRawTransaction', [first])).result);
    assert.deepEqual((await call('eth_sendRawTransaction', [first])).error, {
      code: -32000,
      message: 'already known',
    });

    const same = await signed(wallet, {
      to: CONTRACTS.pusd,
      nonce: 0,
      data: approveData(CONTRACTS.exchangeV2, 2n),
    });
    assert.deepEqual((await call('eth_sendRawTransaction', [same])).error, {
      code: -32000,
      message: 'replacement transaction underpriced',
    });
    assert.equal(await chain.provider.getTransactionCount(wallet.address, 'pending'), 1);
    assert.equal(await chain.provider.getTransactionCount(wallet.address, 'latest'), 0);

    // +10 % on both caps replaces it; the replaced transaction is gone.
    const bumped = await signed(wallet, {
      to: CONTRACTS.pusd,
      nonce: 0,
      data: approveData(CONTRACTS.exchangeV2, 3n),
      maxFeePerGas: parseUnits('110', 'gwei'),
      maxPriorityFeePerGas: parseUnits('33', 'gwei'),
    });
    const bumpedHash = (await call('eth_sendRawTransaction', [bumped])).result;
    await mine();
    assert.equal(await chain.provider.getTransaction(Transaction.from(first).hash!), null);
    assert.equal((await chain.provider.getTransactionReceipt(bumpedHash))?.status, 1);
    assert.equal(chain.emu.state.ledger.allowance(wallet.address, CONTRACTS.exchangeV2), 3n);

    const stale = (await call('eth_sendRawTransaction', [first])).error;
    assert.equal(stale.code, -32000);
    assert.match(stale.message, /^nonce too low/);
    // ethers classifies the node's texts.
    await assert.rejects(chain.provider.broadcastTransaction(same), { code: 'NONCE_EXPIRED' });
  });

  it('when the reference vector (approve, nonce 7) is sent, then it is accepted with its hash and waits behind the nonce gap', async () => {
    await manualMining();
    const raw =
      '0x02f8b38189078506fc23ac00852e90edd0008301d4c094c011a7e12a19f7b1f670d46f03b03f3342e82dfb80b844095ea7b3000000000000000000000000e111180000d2663c0091e4f400237545b87b996bffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffc001a0ce82754ed4418713951077c61f94a5fb315b1b7ddbf2d54c8c3810aa90a4c9e5a00914fb95145839d4a4f4edbecd2b7748aa76f5a457ab3555ec666214743d154a';
    const hardhat0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
    await admin(`/polygon/accounts/${hardhat0}/fund`, { pol: 1 });
    const hash = (await call('eth_sendRawTransaction', [raw])).result;
    assert.match(hash, /^0x0801ca58[0-9a-f]{52}a4bb$/);
    await mine();
    assert.equal((await call('eth_getTransactionReceipt', [hash])).result, null, 'nonces 0–6 are missing');
    assert.equal(await chain.provider.getTransactionCount(hardhat0, 'pending'), 0);
    const tx = await chain.provider.getTransaction(hash);
    assert.equal(tx?.from, hardhat0);
    assert.equal(tx?.nonce, 7);
  });

  it('when a transaction is signed for another chain, unsigned or unaffordable, then it is refused', async () => {
    const wallet = await newWallet();
    const mainnet = await wallet.signTransaction({
      chainId: 1,
      type: 2,
      nonce: 0,
      to: CONTRACTS.pusd,
      gasLimit: 100_000,
      maxFeePerGas: parseUnits('100', 'gwei'),
      maxPriorityFeePerGas: parseUnits('30', 'gwei'),
      data: approveData(CONTRACTS.exchangeV2, 1n),
    });
    const wrongChain = (await call('eth_sendRawTransaction', [mainnet])).error;
    assert.equal(wrongChain.code, -32000);
    assert.match(wrongChain.message, /invalid chain id/);

    const unsigned = Transaction.from({
      chainId: 137,
      type: 2,
      nonce: 0,
      to: CONTRACTS.pusd,
      gasLimit: 100_000,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 1n,
    }).unsignedSerialized;
    assert.equal(
      (await call('eth_sendRawTransaction', [unsigned])).error.message,
      'invalid sender: invalid transaction v, r, s values',
    );
    assert.equal((await call('eth_sendRawTransaction', ['0x02zz'])).error.code, -32602);

    const broke = await newWallet(0);
    const raw = await signed(broke, {
      to: CONTRACTS.pusd,
      nonce: 0,
      data: approveData(CONTRACTS.exchangeV2, 1n),
    });
    const poor = (await call('eth_sendRawTransaction', [raw])).error;
    assert.match(
      poor.message,
      /^insufficient funds for gas \* price \+ value: balance 0, tx cost 10000000000000000/,
    );
    await assert.rejects(chain.provider.broadcastTransaction(raw), { code: 'INSUFFICIENT_FUNDS' });
  });

  it('when a legacy (type 0) and an EIP-1559 (type 2) transaction are sent with ethers, then both are mined', async () => {
    await admin('/polygon/mining', { mode: 'instant' });
    const wallet = await newWallet();
    const ctf = new Contract(CONTRACTS.ctf, CTF, wallet);
    const legacy = await ctf.getFunction('setApprovalForAll')(CONTRACTS.exchangeV2, true, {
      type: 0,
      gasPrice: parseUnits('60', 'gwei'),
    });
    const eip1559 = await wallet.sendTransaction({
      to: CONTRACTS.pusd,
      data: approveData(CONTRACTS.negRiskExchangeV2, MaxUint256),
    });
    assert.equal(eip1559.type, 2);
    const [r0, r2] = [await legacy.wait(), await eip1559.wait()];
    assert.equal(r0.status, 1);
    assert.equal(r2?.status, 1);
    assert.equal((await chain.provider.getTransaction(legacy.hash))?.type, 0);
    assert.equal((await chain.provider.getTransaction(eip1559.hash))?.type, 2);
    assert.equal(await ctf.getFunction('isApprovedForAll')(wallet.address, CONTRACTS.exchangeV2), true);
    assert.equal(chain.emu.state.ledger.allowance(wallet.address, CONTRACTS.negRiskExchangeV2), MaxUint256);

    // Anything else sent to a known contract reverts; POL sent to an account moves.
    const other = Wallet.createRandom().address;
    const bad = await wallet.sendTransaction({
      to: CONTRACTS.pusd,
      data: '0x23b872dd' + '00'.repeat(96),
      gasLimit: 100_000,
    });
    assert.equal((await chain.provider.getTransactionReceipt(bad.hash))?.status, 0);
    await (await wallet.sendTransaction({ to: other, value: parseEther('0.1') })).wait();
    assert.equal(await chain.provider.getBalance(other), parseEther('0.1'));
    const listed = await admin(`/polygon/transactions?from=${wallet.address}`, undefined, 'GET');
    assert.deepEqual(
      listed.map((t: Json) => t.receipt_status),
      [1, 1, 0, 1],
    );
  });

  it('when a position is redeemed before resolution it reverts and pays 0; after resolution it pays the winning shares in pUSD once, with the logs of the real adapter', async () => {
    await admin('/polygon/mining', { mode: 'instant' });
    const wallet = await newWallet();
    const { conditionId, tokenIds } = newMarket();
    await admin(`/wallets/${wallet.address}/fund`, {
      pusd: 1,
      tokens: { [tokenIds[0]]: 10, [tokenIds[1]]: 4 },
    });
    const ctf = new Contract(CONTRACTS.ctf, CTF, wallet);
    await (await ctf.getFunction('setApprovalForAll')(CONTRACTS.ctfCollateralAdapter, true)).wait();
    const adapter = new Contract(CONTRACTS.ctfCollateralAdapter, CTF, wallet);
    let receipt: TransactionReceipt | null = null;
    const redeem = async () => {
      // An explicit gas limit: ethers would otherwise refuse at estimateGas before sending.
      const tx = await adapter.getFunction('redeemPositions')(CONTRACTS.pusd, ZeroHash, conditionId, [1, 2], {
        gasLimit: 200_000,
      });
      receipt = (await chain.provider.getTransactionReceipt(tx.hash))!;
      return receipt.status;
    };

    assert.equal(await ctf.getFunction('payoutDenominator')(conditionId), 0n);
    assert.equal(await redeem(), 0, 'the CTF reverts: result for condition not received yet');
    assert.deepEqual(receipt!.logs, [], 'a reverted call logs nothing');
    assert.equal(await pusdOf(wallet.address), 1_000_000n);
    assert.equal(await ctf.getFunction('balanceOf')(wallet.address, tokenIds[0]), 10_000_000n);
    await assert.rejects(
      adapter.getFunction('redeemPositions').estimateGas(CONTRACTS.pusd, ZeroHash, conditionId, [1, 2]),
      /result for condition not received yet/,
    );

    await admin(`/markets/${conditionId}/resolve`, { outcome: 'yes' });
    assert.equal(await ctf.getFunction('payoutDenominator')(conditionId), 1n);
    assert.equal(await ctf.getFunction('payoutNumerators')(conditionId, 0), 1n);
    assert.equal(await ctf.getFunction('payoutNumerators')(conditionId, 1), 0n);
    assert.equal(await redeem(), 1);
    assert.equal(
      await pusdOf(wallet.address),
      11_000_000n,
      '10 winning shares pay 10 pUSD; the 4 losing ones 0',
    );
    // ctf-exchange-v2 CtfCollateralAdapter.redeemPositions: the adapter pulls both outcomes, the
    // CTF burns them and pays the adapter (its PayoutRedemption names the adapter), and pUSD wraps
    // the USDC.e for the holder.
    const [adapterAddress, holder] = [CONTRACTS.ctfCollateralAdapter, wallet.address];
    const ids = tokenIds.map(BigInt);
    const [paid, lost] = [10_000_000n, 4_000_000n];
    assert.deepEqual(eventsOf(receipt!), [
      [CONTRACTS.ctf, 'TransferBatch', [adapterAddress, holder, adapterAddress, ids, [paid, lost]]],
      [CONTRACTS.ctf, 'TransferSingle', [adapterAddress, adapterAddress, ZeroAddress, ids[0], paid]],
      [CONTRACTS.ctf, 'TransferSingle', [adapterAddress, adapterAddress, ZeroAddress, ids[1], lost]],
      [CONTRACTS.usdcE, 'Transfer', [CONTRACTS.ctf, adapterAddress, paid]],
      [CONTRACTS.ctf, 'PayoutRedemption', [adapterAddress, USDC_E, ZeroHash, conditionId, [1n, 2n], paid]],
      [CONTRACTS.usdcE, 'Transfer', [adapterAddress, CONTRACTS.pusd, paid]],
      [CONTRACTS.pusd, 'Transfer', [ZeroAddress, holder, paid]],
      [CONTRACTS.pusd, 'Wrapped', [adapterAddress, USDC_E, holder, paid]],
    ]);
    assert.deepEqual(
      [...(await ctf.getFunction('balanceOfBatch')([wallet.address, wallet.address], tokenIds))],
      [0n, 0n],
      'both outcomes burned',
    );
    assert.equal(await redeem(), 1, 'a second redemption still succeeds');
    assert.equal(await pusdOf(wallet.address), 11_000_000n, '… and pays nothing');
    assert.deepEqual(
      eventsOf(receipt!).map(([, name, args]) => [name, args.at(-1)]),
      [
        ['TransferBatch', [0n, 0n]],
        ['PayoutRedemption', 0n],
        ['Transfer', 0n],
        ['Transfer', 0n],
        ['Wrapped', 0n],
      ],
      'a redemption that pays nothing is logged all the same',
    );
  });

  it('when a neg-risk position is redeemed through its collateral adapter, then the NegRiskAdapter’s PayoutRedemption names the adapter and pUSD is wrapped for the holder', async () => {
    await admin('/polygon/mining', { mode: 'instant' });
    const wallet = await newWallet();
    const neg = newMarket(true);
    await admin(`/wallets/${wallet.address}/fund`, {
      tokens: { [neg.tokenIds[0]]: 3, [neg.tokenIds[1]]: 7 },
    });
    await admin(`/markets/${neg.conditionId}/resolve`, { outcome: 'no' });
    const nrc = CONTRACTS.negRiskCtfCollateralAdapter;
    const ctf = new Contract(CONTRACTS.ctf, CTF, wallet);
    await (await ctf.getFunction('setApprovalForAll')(nrc, true)).wait();
    const tx = await new Contract(nrc, CTF, wallet).getFunction('redeemPositions')(
      CONTRACTS.pusd,
      ZeroHash,
      neg.conditionId,
      [1, 2],
    );
    const receipt = (await tx.wait())!;
    assert.equal(await pusdOf(wallet.address), 7_000_000n);
    const nra = CONTRACTS.negRiskAdapter;
    const ids = neg.tokenIds.map(BigInt);
    const amounts = [3_000_000n, 7_000_000n];
    assert.deepEqual(eventsOf(receipt), [
      [CONTRACTS.ctf, 'TransferBatch', [nrc, wallet.address, nrc, ids, amounts]],
      [CONTRACTS.ctf, 'TransferBatch', [nra, nrc, nra, ids, amounts]],
      [CONTRACTS.ctf, 'TransferSingle', [nra, nra, ZeroAddress, ids[0], amounts[0]]],
      [CONTRACTS.ctf, 'TransferSingle', [nra, nra, ZeroAddress, ids[1], amounts[1]]],
      [nra, 'PayoutRedemption', [nrc, neg.conditionId, amounts, 7_000_000n]],
      [CONTRACTS.usdcE, 'Transfer', [nrc, CONTRACTS.pusd, 7_000_000n]],
      [CONTRACTS.pusd, 'Transfer', [ZeroAddress, wallet.address, 7_000_000n]],
      [CONTRACTS.pusd, 'Wrapped', [nrc, USDC_E, wallet.address, 7_000_000n]],
    ]);
  });

  it('when a neg-risk position is redeemed through the NegRiskAdapter or a legacy CTF call, then the payout follows the reference and the PayoutRedemption names the caller', async () => {
    await admin('/polygon/mining', { mode: 'instant' });
    const wallet = await newWallet();
    const neg = newMarket(true);
    const std = newMarket();
    await admin(`/wallets/${wallet.address}/fund`, {
      tokens: { [neg.tokenIds[0]]: 3, [neg.tokenIds[1]]: 7, [std.tokenIds[1]]: 2 },
    });
    await admin(`/markets/${neg.conditionId}/resolve`, { outcome: 'no' });
    await admin(`/markets/${std.conditionId}/resolve`, { outcome: 'no' });

    const ctf = new Contract(CONTRACTS.ctf, CTF, wallet);
    await (await ctf.getFunction('setApprovalForAll')(CONTRACTS.negRiskAdapter, true)).wait();
    const nr = new Contract(CONTRACTS.negRiskAdapter, NEG_RISK_ADAPTER, wallet);
    const tx = await nr.getFunction('redeemPositions')(neg.conditionId, [3_000_000n, 5_000_000n]);
    const negReceipt = (await tx.wait())!;
    assert.equal(negReceipt.status, 1);
    assert.equal(await pusdOf(wallet.address), 5_000_000n, 'the 5 "no" shares redeemed pay 5');
    assert.equal(chain.emu.state.ledger.tokenBalance(wallet.address, neg.tokenIds[1]), 2_000_000n);
    assert.deepEqual(eventsOf(negReceipt).at(-1), [
      CONTRACTS.negRiskAdapter,
      'PayoutRedemption',
      [wallet.address, neg.conditionId, [3_000_000n, 5_000_000n], 5_000_000n],
    ]);

    // Legacy direct CTF redemption of a standard market: collateral USDC.e, parent 0, [1, 2].
    const direct = await (
      await ctf.getFunction('redeemPositions')(USDC_E, ZeroHash, std.conditionId, [1, 2])
    ).wait();
    assert.equal(await pusdOf(wallet.address), 7_000_000n);
    assert.equal(chain.emu.state.ledger.tokenBalance(wallet.address, std.tokenIds[1]), 0n);
    assert.deepEqual(eventsOf(direct).at(-1), [
      CONTRACTS.ctf,
      'PayoutRedemption',
      [wallet.address, USDC_E, ZeroHash, std.conditionId, [1n, 2n], 2_000_000n],
    ]);
  });

  it('when the admin inspects, switches mining and resets, then the chain follows', async () => {
    await manualMining();
    const wallet = await newWallet(0.5);
    const raw = await signed(wallet, {
      to: CONTRACTS.pusd,
      nonce: 0,
      data: approveData(CONTRACTS.exchangeV2, 7n),
    });
    const hash = Transaction.from(raw).hash!;
    await call('eth_sendRawTransaction', [raw]);
    const status = await admin('/polygon', undefined, 'GET');
    assert.deepEqual(status.pending, [hash]);
    assert.equal(status.mining.mode, 'manual');
    const seen = await admin(`/polygon/transactions/${hash}`, undefined, 'GET');
    assert.equal(seen.status, 'pending');
    assert.equal(seen.selector, '0x095ea7b3');
    // Switching to instant mines what is pending.
    await admin('/polygon/mining', { mode: 'instant' });
    assert.equal((await admin(`/polygon/transactions/${hash}`, undefined, 'GET')).receipt_status, 1);
    const account = await admin(`/polygon/accounts/${wallet.address}`, undefined, 'GET');
    assert.equal(account.nonce, 1);
    const bad = await fetch(`${chain.emu.adminUrl}/polygon/mining`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ mode: 'sometimes' }),
    });
    assert.equal(bad.status, 400);

    await admin('/reset');
    assert.equal(await chain.provider.getBalance(wallet.address), 0n);
    assert.equal(await chain.provider.getTransactionCount(wallet.address), 0);
    assert.equal(await chain.provider.getTransaction(hash), null);
    assert.equal(chain.emu.state.ledger.allowance(wallet.address, CONTRACTS.exchangeV2), 0n);
  });
});
