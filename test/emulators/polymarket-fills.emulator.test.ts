import assert from 'node:assert/strict';
import { Chain, ClobClient, OrderType, Side } from '@polymarket/clob-client-v2';
import { Contract, getAddress, Interface, MaxUint256, Wallet, type Log } from 'ethers';
import type { WalletClient } from 'viem';
import { CONTRACTS } from './polymarket/index.js';
import {
  newViemSigner as newSigner,
  useEmulatedPolygon,
  type EmulatedPolygon,
} from '../support/emulated-chain-clients.js';

// The fills of every match on the emulated chain, read the way a chain indexer reads Polymarket:
// ethers v6 against the emulated Polygon JSON-RPC, the exchanges' logs parsed with the events of
// ctf-exchange-v2 (`src/exchange/interfaces/ITrading.sol`), written out here rather than imported
// from the emulator so the emulator is checked against the contract, not against itself.

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

const EXCHANGE_EVENTS = [
  'event OrderFilled(bytes32 indexed orderHash, address indexed maker, address indexed taker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled, uint256 fee, bytes32 builder, bytes32 metadata)',
  'event OrdersMatched(bytes32 indexed takerOrderHash, address indexed takerOrderMaker, uint8 side, uint256 tokenId, uint256 makerAmountFilled, uint256 takerAmountFilled)',
];
const exchangeAbi = new Interface(EXCHANGE_EVENTS);
const BUY = 0n;
const SELL = 1n;

/** The suite’s emulator and its ethers provider (useEmulatedPolygon). */
let chain: EmulatedPolygon;

async function admin(path: string, body?: unknown, expect = 200): Promise<Json> {
  const res = await fetch(`${chain.emu.adminUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body ?? {}),
  });
  const text = await res.text();
  assert.equal(res.status, expect, `admin ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const mine = async () => (await admin('/polygon/mine')).block_number as number;

async function tradingClient(signer: WalletClient): Promise<ClobClient> {
  const host = chain.emu.clobUrl;
  const creds = await new ClobClient({ host, chain: Chain.POLYGON, signer }).createOrDeriveApiKey();
  return new ClobClient({ host, chain: Chain.POLYGON, signer, creds, throwOnError: true });
}

/** Every exchange event of `block`, parsed, in log order. */
async function exchangeLogs(fromBlock: number, toBlock = fromBlock, address?: string) {
  const logs = await chain.provider.getLogs({
    fromBlock,
    toBlock,
    address: address ?? [CONTRACTS.exchangeV2, CONTRACTS.negRiskExchangeV2],
  });
  return logs.map((log) => ({ log, event: exchangeAbi.parseLog(log)! }));
}

const lower = (a: string) => a.toLowerCase();

describe('Polymarket emulator: every match on the chain as the exchanges fill events', () => {
  chain = useEmulatedPolygon();

  it('when a client-signed order takes another wallet’s resting order, then the mined transaction of the trade has one OrderFilled per order and OrdersMatched, with the trade’s amounts', async () => {
    const [m] = chain.emu.state.createEvent({ title: `Fills test ${Math.random()}`, prices: [0.5] }).markets;
    const yes = m!.tokenIds[0]!;
    const maker = newSigner();
    const taker = newSigner();
    const makerAddress = maker.account.address;
    const takerAddress = taker.account.address;
    await admin(`/wallets/${makerAddress}/fund`, { tokens: { [yes]: 10 } });
    await admin(`/wallets/${makerAddress}/approve`);
    await admin(`/wallets/${takerAddress}/fund`, { pusd: 100 });
    await admin(`/wallets/${takerAddress}/approve`);
    const resting = await (
      await tradingClient(maker)
    ).createAndPostOrder(
      { tokenID: yes, price: 0.5, size: 10, side: Side.SELL },
      { tickSize: '0.01', negRisk: false },
      OrderType.GTC,
    );
    assert.equal(resting.status, 'live', JSON.stringify(resting));
    const resp = await (
      await tradingClient(taker)
    ).createAndPostOrder(
      { tokenID: yes, price: 0.5, size: 10, side: Side.BUY },
      { tickSize: '0.01', negRisk: false },
      OrderType.GTC,
    );
    assert.equal(resp.status, 'matched', JSON.stringify(resp));
    const [txHash] = resp.transactionsHashes as string[];

    // Interval mining: the settlement waits in the pool for the next block.
    assert.equal(await chain.provider.getTransactionReceipt(txHash!), null);
    const head = await mine();
    const receipt = (await chain.provider.getTransactionReceipt(txHash!))!;
    assert.equal(receipt.status, 1);
    assert.equal(receipt.blockNumber, head);
    assert.equal(lower(receipt.to!), lower(CONTRACTS.exchangeV2));
    assert.equal(Number(await chain.provider.send('eth_blockNumber', [])), head);
    const block = (await chain.provider.getBlock(head))!;
    assert.equal(block.hash, receipt.blockHash);
    assert.ok(block.transactions.includes(txHash!));

    const parsed = receipt.logs.map((l) => exchangeAbi.parseLog(l)!);
    assert.deepEqual(
      parsed.map((e) => e.name),
      ['OrderFilled', 'OrderFilled', 'OrdersMatched'],
    );
    const [makerFill, takerFill, matched] = parsed;
    // The maker leg: the resting SELL gave 10 shares for 5 pUSD, its counterparty the taker.
    assert.equal(makerFill!.args.orderHash, resting.orderID);
    assert.equal(makerFill!.args.maker, makerAddress);
    assert.equal(makerFill!.args.taker, takerAddress);
    assert.equal(makerFill!.args.side, SELL);
    assert.equal(makerFill!.args.tokenId, BigInt(yes));
    assert.equal(makerFill!.args.makerAmountFilled, 10_000_000n);
    assert.equal(makerFill!.args.takerAmountFilled, 5_000_000n);
    // The taker leg: the BUY gave 5 pUSD for 10 shares, its counterparty the exchange.
    assert.equal(takerFill!.args.orderHash, resp.orderID);
    assert.equal(takerFill!.args.maker, takerAddress);
    assert.equal(takerFill!.args.taker, CONTRACTS.exchangeV2);
    assert.equal(takerFill!.args.side, BUY);
    assert.deepEqual(
      [takerFill!.args.makerAmountFilled, takerFill!.args.takerAmountFilled],
      [5_000_000n, 10_000_000n],
    );
    assert.deepEqual(
      [
        matched!.args.takerOrderHash,
        matched!.args.takerOrderMaker,
        matched!.args.side,
        matched!.args.tokenId,
      ],
      [resp.orderID, takerAddress, BUY, BigInt(yes)],
    );
    assert.deepEqual(
      receipt.logs.map((l) => l.index),
      [0, 1, 2],
    );

    // A follower watching the maker wallet: an indexed-topic filter on the exchange contract.
    const exchange = new Contract(CONTRACTS.exchangeV2, EXCHANGE_EVENTS, chain.provider);
    const forMaker = await exchange.queryFilter(exchange.filters.OrderFilled!(null, makerAddress), 0, head);
    assert.deepEqual(
      forMaker.map((e) => [e.transactionHash, (e as Log & { args: Json }).args.maker]),
      [[txHash, makerAddress]],
    );
    const forNobody = await exchange.queryFilter(
      exchange.filters.OrderFilled!(null, Wallet.createRandom().address),
    );
    assert.deepEqual(forNobody, []);
    // The CLOB's trade names the same transaction.
    const trades = await (await tradingClient(taker)).getTrades();
    assert.equal(trades[0]?.transaction_hash, txHash);
  });

  it('when the crowd trades on a price move of a neg-risk market, or an admin makes a given wallet trade, then each trade is a Neg Risk exchange transaction whose hash the public tape shows', async () => {
    const { markets } = chain.emu.state.createEvent({
      title: `Neg risk fills ${Math.random()}`,
      outcomes: ['A', 'B', 'C'],
      prices: [0.3, 0.3, 0.4],
    });
    const m = markets[0]!;
    assert.equal(m.negRisk, true);
    await admin(`/markets/${m.conditionId}/price`, { yes: 0.36 });
    const whale = Wallet.createRandom().address;
    const fill = await admin(`/markets/${m.conditionId}/fills`, {
      wallet: whale,
      side: 'SELL',
      shares: 25,
      outcome_index: 1,
      price: 0.62,
    });
    const head = await mine();

    const tape = (await (
      await fetch(`${chain.emu.dataUrl}/trades?market=${m.conditionId}&limit=100`)
    ).json()) as Json[];
    const tapeHashes = new Set(tape.map((t) => t.transactionHash));
    assert.ok(tape.length >= 2, 'the move printed crowd trades and the admin fill');
    assert.ok(tapeHashes.has(fill.transaction_hash));

    const found = await exchangeLogs(head, head, CONTRACTS.negRiskExchangeV2);
    assert.deepEqual(await exchangeLogs(head, head, CONTRACTS.exchangeV2), []);
    // Each printed trade is one transaction: maker OrderFilled, taker OrderFilled, OrdersMatched.
    const byTx = new Map<string, string[]>();
    for (const { log, event } of found)
      byTx.set(log.transactionHash, [...(byTx.get(log.transactionHash) ?? []), event.name]);
    assert.deepEqual(new Set(byTx.keys()), tapeHashes);
    for (const names of byTx.values())
      assert.deepEqual(names, ['OrderFilled', 'OrderFilled', 'OrdersMatched']);

    // The wallet the admin named is the taker, on the NO token, with the amounts asked for.
    const own = found.filter(({ log }) => log.transactionHash === fill.transaction_hash).map((f) => f.event);
    assert.deepEqual(
      own.map((e) => [e.name, e.args[1], e.args.side]),
      [
        ['OrderFilled', getAddress(fill.makers[0].wallet), BUY],
        ['OrderFilled', whale, SELL],
        ['OrdersMatched', whale, SELL],
      ],
    );
    assert.equal(own[1]!.args.tokenId, BigInt(m.tokenIds[1]!));
    assert.deepEqual(
      [own[1]!.args.makerAmountFilled, own[1]!.args.takerAmountFilled],
      [25_000_000n, 15_500_000n],
    );
    // Filtered by the whale as OrdersMatched's indexed takerOrderMaker, over a block range.
    const matched = await chain.provider.getLogs({
      fromBlock: head - 5,
      toBlock: 'latest',
      address: CONTRACTS.negRiskExchangeV2,
      topics: [
        exchangeAbi.getEvent('OrdersMatched')!.topicHash,
        null,
        `0x${whale.slice(2).toLowerCase().padStart(64, '0')}`,
      ],
    });
    assert.deepEqual(
      matched.map((l) => l.transactionHash),
      [fill.transaction_hash],
    );
  });

  it('when a reorg replaces the block of a fill and drops it, then its logs and receipt are gone, the other fills of the block have the new block hash, and the chain links up', async () => {
    const [m] = chain.emu.state.createEvent({ title: `Reorg test ${Math.random()}`, prices: [0.5] }).markets;
    const kept = await admin(`/markets/${m!.conditionId}/fills`, {
      wallet: Wallet.createRandom().address,
      side: 'BUY',
      shares: 10,
    });
    const dropped = await admin(`/markets/${m!.conditionId}/fills`, {
      wallet: Wallet.createRandom().address,
      side: 'BUY',
      shares: 20,
    });
    // An approval in the same block: it changed an allowance, so a reorg may not drop it.
    const owner = Wallet.createRandom().connect(chain.provider);
    await admin(`/polygon/accounts/${owner.address}/fund`, { pol: 1 });
    const pusd = new Contract(
      CONTRACTS.pusd,
      ['function approve(address spender, uint256 amount) returns (bool)'],
      owner,
    );
    // Fees given: ethers asks Polygon's gas station (off line here) for them otherwise.
    const approval = await pusd.getFunction('approve')(CONTRACTS.exchangeV2, MaxUint256, {
      maxFeePerGas: 200_000_000_000n,
      maxPriorityFeePerGas: 30_000_000_000n,
    });
    const head = await mine();
    const before = (await chain.provider.getBlock(head))!;
    assert.equal((await exchangeLogs(head)).length, 6);
    assert.equal(before.transactions.length, 3);

    const refused = await admin('/polygon/reorg', { depth: 1, drop: [approval.hash] }, 409);
    assert.match(refused.error, /changed balances/);

    const reorg = await admin('/polygon/reorg', { depth: 1, drop: [dropped.transaction_hash] });
    assert.equal(reorg.replaced[0].old_hash, before.hash);
    const after = (await chain.provider.getBlock(head))!;
    assert.notEqual(after.hash, before.hash);
    assert.equal(after.hash, reorg.replaced[0].new_hash);
    assert.equal(after.parentHash, before.parentHash, 'the block below the fork is the same');
    assert.deepEqual(new Set(after.transactions), new Set([kept.transaction_hash, approval.hash]));

    assert.equal(await chain.provider.getTransactionReceipt(dropped.transaction_hash), null);
    assert.equal(await chain.provider.getTransaction(dropped.transaction_hash), null);
    const logs = await exchangeLogs(head);
    assert.deepEqual(
      logs.map(({ log }) => [log.transactionHash, log.blockHash, log.index]),
      [0, 1, 2].map((i) => [kept.transaction_hash, after.hash, i]),
    );
    const receipt = (await chain.provider.getTransactionReceipt(kept.transaction_hash))!;
    assert.equal(receipt.blockHash, after.hash);
    // By block hash: the old block is unknown, the new one answers.
    await assert.rejects(chain.provider.send('eth_getLogs', [{ blockHash: before.hash }]), /unknown block/);
    // The approval's Approval event and the kept fill's three.
    assert.equal((await chain.provider.send('eth_getLogs', [{ blockHash: after.hash }])).length, 4);

    // The next block builds on the replacement.
    await admin(`/markets/${m!.conditionId}/fills`, {
      wallet: Wallet.createRandom().address,
      side: 'SELL',
      shares: 5,
    });
    const next = (await chain.provider.getBlock(await mine()))!;
    assert.equal(next.parentHash, after.hash);
  });
});
