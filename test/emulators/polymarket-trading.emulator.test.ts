import assert from 'node:assert/strict';
import {
  ApiError,
  AssetType,
  Chain,
  ClobClient,
  OrderType,
  Side,
  SignatureTypeV2,
  type ApiKeyCreds,
  type OrderResponse,
} from '@polymarket/clob-client-v2';
import type { WalletClient } from 'viem';
import {
  CONTRACTS,
  MAX_UINT256,
  startPolymarketEmulator,
  type PolymarketEmulator,
} from './polymarket/index.js';
import type { MarketRecord } from './polymarket/model.js';
import { proxyWalletOf } from './polymarket/wallet-derivation.js';
import { newViemSigner as newSigner } from '../support/emulated-chain-clients.js';

// Conformance of the emulated CLOB trading API with Polymarket's official TypeScript client
// (@polymarket/clob-client-v2): the client derives API credentials from the emulator (L1), signs
// V2 orders with its own order builder, posts them (L2 HMAC), and reads orders, trades and
// balances back. Everything the client sends is produced by the client; the tests only fund and
// approve wallets and move the emulator through its admin API.

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

let emu: PolymarketEmulator;

async function admin(path: string, body?: unknown, method = 'POST'): Promise<Json> {
  const res = await fetch(`${emu.adminUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  assert.ok(res.ok, `admin ${path}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

async function fundAndApprove(address: string, pusd = 1_000, tokens?: Record<string, number>) {
  await admin(`/wallets/${address}/fund`, { pusd, ...(tokens ? { tokens } : {}) });
  await admin(`/wallets/${address}/approve`, {});
}

/** L1 then L2: the official client derives credentials from the emulator and trades with them. */
async function tradingClient(
  signer: WalletClient,
  opts: { signatureType?: SignatureTypeV2; funderAddress?: string; creds?: ApiKeyCreds } = {},
): Promise<{ client: ClobClient; creds: ApiKeyCreds }> {
  const host = emu.clobUrl;
  const creds =
    opts.creds ?? (await new ClobClient({ host, chain: Chain.POLYGON, signer }).createOrDeriveApiKey());
  const client = new ClobClient({
    host,
    chain: Chain.POLYGON,
    signer,
    creds,
    signatureType: opts.signatureType,
    funderAddress: opts.funderAddress,
    throwOnError: true,
  });
  return { client, creds };
}

/** A new binary market at 0.50 (tick 0.01): asks 0.51…0.56, bids 0.49…0.44. */
function newMarket(prices = [0.5], outcomes?: string[]): MarketRecord[] {
  return emu.state.createEvent({ title: `Trading test ${Math.random()}`, prices, outcomes }).markets;
}

const units = (decimal: string) => BigInt(Math.round(Number(decimal) * 1e6));

async function apiError(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  assert.fail('expected the CLOB to refuse');
}

describe('Polymarket emulator: trading with the official client (@polymarket/clob-client-v2)', () => {
  before(async () => {
    emu = await startPolymarketEmulator();
  });
  after(async () => {
    await emu.close();
  });
  beforeEach(async () => {
    await admin('/reset');
  });

  it('when a wallet asks for API credentials twice, then create-or-derive returns the same key and L2 calls work', async () => {
    const signer = newSigner();
    const l1 = new ClobClient({ host: emu.clobUrl, chain: Chain.POLYGON, signer });
    const first = await l1.createOrDeriveApiKey();
    assert.match(first.key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.ok(first.secret && first.passphrase);
    assert.deepEqual(await l1.createOrDeriveApiKey(), first, 'create fails (exists), derive returns it');
    assert.deepEqual(await l1.deriveApiKey(), first);
    const { client } = await tradingClient(signer, { creds: first });
    assert.deepEqual(await client.getApiKeys(), { apiKeys: [first.key] });
    assert.deepEqual(await client.getClosedOnlyMode(), { closed_only: false });
    // Another nonce is another key.
    const second = await l1.createApiKey(1);
    assert.notEqual(second.key, first.key);
  });

  it('when a funded, approved wallet market-buys (FOK), then it fills against the book and reads back everywhere', async () => {
    const [m] = newMarket();
    const yes = m!.tokenIds[0];
    const signer = newSigner();
    const address = signer.account.address;
    await fundAndApprove(address);
    const { client } = await tradingClient(signer);

    const book = await client.getOrderBook(yes);
    const bestAsk = Math.min(...book.asks.map((a) => Number(a.price)));
    const resp: OrderResponse = await client.createAndPostMarketOrder(
      { tokenID: yes, amount: 5, side: Side.BUY, orderType: OrderType.FOK },
      undefined,
      OrderType.FOK,
    );
    assert.equal(resp.success, true, JSON.stringify(resp));
    assert.equal(resp.status, 'matched');
    assert.match(resp.orderID, /^0x[0-9a-f]{64}$/);
    assert.equal(resp.tradeIDs?.length, 1);
    assert.equal(resp.transactionsHashes?.length, 1);
    assert.ok(Number(resp.makingAmount) <= 5 && Number(resp.makingAmount) > 4.99, resp.makingAmount);
    assert.ok(Math.abs(Number(resp.takingAmount) - 5 / bestAsk) < 0.001, resp.takingAmount);

    const order = await client.getOrder(resp.orderID);
    assert.deepEqual(
      [order.status, order.side, order.order_type, order.size_matched, order.asset_id, order.market],
      ['MATCHED', 'BUY', 'FOK', resp.takingAmount, yes, m!.conditionId],
    );
    assert.equal(order.maker_address.toLowerCase(), address.toLowerCase());

    const [trade, ...more] = await client.getTrades({ id: resp.tradeIDs![0] });
    assert.equal(more.length, 0);
    assert.deepEqual(
      [trade!.status, trade!.side, trade!.trader_side, trade!.size, trade!.taker_order_id],
      ['MATCHED', 'BUY', 'TAKER', resp.takingAmount, resp.orderID],
    );
    assert.equal(trade!.transaction_hash, resp.transactionsHashes![0]);
    assert.equal(Number(trade!.price), bestAsk);
    assert.equal(trade!.maker_orders[0]!.price, String(bestAsk));

    const pusd = await client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    assert.equal(BigInt(pusd.balance), 1_000_000_000n - units(resp.makingAmount));
    assert.equal(pusd.allowances[CONTRACTS.exchangeV2], MAX_UINT256.toString());
    const shares = await client.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: yes });
    assert.equal(BigInt(shares.balance), units(resp.takingAmount));

    const positions = (await (await fetch(`${emu.dataUrl}/positions?user=${address}`)).json()) as Json[];
    assert.equal(positions.length, 1);
    assert.deepEqual(
      [positions[0].asset, positions[0].size, positions[0].avgPrice],
      [yes, Number(resp.takingAmount), bestAsk],
    );

    // The book lost what the fill took at the best ask.
    const after = await client.getOrderBook(yes);
    const level = (b: typeof book) => b.asks.find((a) => Number(a.price) === bestAsk)?.size;
    assert.ok(Math.abs(Number(level(book)) - Number(level(after)) - Number(resp.takingAmount)) < 1e-6);
    assert.equal((await client.getLastTradePrice(yes)).price, String(bestAsk));

    // Selling shares back into the bid: a limit SELL that crosses fills at the bid.
    const bestBid = Math.max(...after.bids.map((b) => Number(b.price)));
    const sell = await client.createAndPostOrder(
      { tokenID: yes, price: bestBid, size: 5, side: Side.SELL },
      undefined,
      OrderType.GTC,
    );
    assert.deepEqual([sell.status, sell.makingAmount], ['matched', '5']);
    assert.ok(Math.abs(Number(sell.takingAmount) - 5 * bestBid) < 1e-9, sell.takingAmount);
    const tokensLeft = await client.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: yes });
    assert.equal(BigInt(tokensLeft.balance), units(resp.takingAmount) - 5_000_000n);
  });

  it('when a GTC order rests, then it is listed as open and the client cancels it', async () => {
    const [m] = newMarket();
    const yes = m!.tokenIds[0];
    const signer = newSigner();
    await fundAndApprove(signer.account.address);
    const { client } = await tradingClient(signer);

    const resp = await client.createAndPostOrder({ tokenID: yes, price: 0.4, size: 10, side: Side.BUY });
    assert.deepEqual(
      [resp.success, resp.status, resp.makingAmount, resp.takingAmount, resp.tradeIDs],
      [true, 'live', '', '', []],
    );
    const open = await client.getOpenOrders({ market: m!.conditionId });
    assert.equal(open.length, 1);
    assert.deepEqual(
      [open[0]!.id, open[0]!.status, open[0]!.original_size, open[0]!.size_matched, open[0]!.price],
      [resp.orderID, 'LIVE', '10', '0', '0.4'],
    );
    assert.equal((await admin(`/wallets/${signer.account.address}`, undefined, 'GET')).reserved_pusd, 4);

    assert.deepEqual(await client.cancelOrder({ orderID: resp.orderID }), {
      canceled: [resp.orderID],
      not_canceled: {},
    });
    assert.deepEqual(await client.cancelOrder({ orderID: resp.orderID }), {
      canceled: [],
      not_canceled: { [resp.orderID]: 'already canceled or matched' },
    });
    assert.deepEqual(await client.getOpenOrders(), []);
    assert.equal((await client.getOrder(resp.orderID)).status, 'CANCELED');
  });

  it('when the admin crosses a resting order, then it fills as maker and its trade settles with the emulator clock', async () => {
    const [m] = newMarket();
    const yes = m!.tokenIds[0];
    const signer = newSigner();
    const address = signer.account.address;
    await fundAndApprove(address);
    const { client } = await tradingClient(signer);
    const { orderID } = await client.createAndPostOrder({
      tokenID: yes,
      price: 0.4,
      size: 10,
      side: Side.BUY,
    });

    const partial = await admin(`/clob/orders/${orderID}/cross`, { size: 4 });
    assert.deepEqual([partial.order.status, partial.order.size_matched], ['LIVE', '4']);
    let order = await client.getOrder(orderID);
    assert.deepEqual([order.status, order.size_matched, order.associate_trades.length], ['LIVE', '4', 1]);
    await admin(`/clob/orders/${orderID}/cross`, {});
    order = await client.getOrder(orderID);
    assert.deepEqual([order.status, order.size_matched], ['MATCHED', '10']);

    const trades = await client.getTrades({ market: m!.conditionId });
    assert.equal(trades.length, 2);
    for (const t of trades) {
      assert.deepEqual([t.trader_side, t.side, t.status, t.price], ['MAKER', 'SELL', 'MATCHED', '0.4']);
      assert.equal(t.maker_orders[0]!.order_id, orderID);
    }
    const pusd = await client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    assert.equal(pusd.balance, String(1_000_000_000 - 4_000_000));

    // MATCHED → MINED → CONFIRMED on the emulator clock (the client keeps signing with its own).
    await admin('/clock', { advance_ms: 5_000 });
    assert.deepEqual(
      (await client.getTrades()).map((t) => t.status),
      ['MINED', 'MINED'],
    );
    await admin('/clock', { advance_ms: 10_000 });
    assert.deepEqual(
      (await client.getTrades()).map((t) => t.status),
      ['CONFIRMED', 'CONFIRMED'],
    );
  });

  it('when an admin price move crosses a resting SELL, then it fills at its own price', async () => {
    const [m] = newMarket();
    const yes = m!.tokenIds[0];
    const signer = newSigner();
    await fundAndApprove(signer.account.address, 0, { [yes]: 20 });
    const { client } = await tradingClient(signer);
    const { orderID, status } = await client.createAndPostOrder({
      tokenID: yes,
      price: 0.6,
      size: 10,
      side: Side.SELL,
    });
    assert.equal(status, 'live');
    await admin(`/markets/${m!.conditionId}/price`, { yes: 0.7 });
    const order = await client.getOrder(orderID);
    assert.deepEqual([order.status, order.size_matched], ['MATCHED', '10']);
    const pusd = await client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    assert.equal(pusd.balance, '6000000');
    const [trade] = await client.getTrades({ id: order.associate_trades[0] });
    assert.deepEqual(
      [trade!.trader_side, trade!.side, trade!.maker_orders[0]!.price],
      ['MAKER', 'BUY', '0.6'],
    );
  });

  it("when orders match, then the market's public trades show the fills with their transaction hashes, and a FAILED one disappears", async () => {
    const [m] = newMarket();
    const yes = m!.tokenIds[0];
    const signer = newSigner();
    await fundAndApprove(signer.account.address, 100, { [yes]: 10 });
    const { client } = await tradingClient(signer);
    const publicTrades = async () =>
      (await (await fetch(`${emu.dataUrl}/trades?market=${m!.conditionId}`)).json()) as Json[];

    // A taker buy against the house book, then a resting sell crossed by a price move.
    const bought = await client.createAndPostOrder({ tokenID: yes, price: 0.52, size: 5, side: Side.BUY });
    assert.equal(bought.status, 'matched');
    const [buyTrade] = await client.getTrades({ id: bought.tradeIDs![0] });
    const [buyRow] = await publicTrades();
    assert.deepEqual(
      [buyRow.proxyWallet, buyRow.side, buyRow.asset, buyRow.size, buyRow.transactionHash],
      [signer.account.address.toLowerCase(), 'BUY', yes, 5, buyTrade!.transaction_hash],
    );

    const resting = await client.createAndPostOrder({ tokenID: yes, price: 0.6, size: 10, side: Side.SELL });
    await admin(`/markets/${m!.conditionId}/price`, { yes: 0.7 });
    const crossed = (await client.getOrder(resting.orderID)).associate_trades[0]!;
    const [sweepTrade] = await client.getTrades({ id: crossed });
    const rows = await publicTrades();
    const sweepRow = rows.find((r) => r.transactionHash === sweepTrade!.transaction_hash);
    assert.ok(sweepRow, 'the crossed resting order prints too');
    assert.deepEqual([sweepRow.side, sweepRow.price, sweepRow.size], ['BUY', 0.6, 10], 'as the taker saw it');
    assert.ok(rows.length > 2, "the crowd's trades of the move print beside ours");

    await admin(`/clob/trades/${bought.tradeIDs![0]}/status`, { status: 'FAILED' });
    assert.ok(!(await publicTrades()).some((r) => r.transactionHash === buyTrade!.transaction_hash));
  });

  it('when a V1 order is posted by the client, then the CLOB refuses it with order_version_mismatch', async () => {
    const [m] = newMarket();
    const signer = newSigner();
    await fundAndApprove(signer.account.address);
    const { client } = await tradingClient(signer);
    const v1 = await client.createOrder(
      { tokenID: m!.tokenIds[0], price: 0.4, size: 10, side: Side.BUY },
      { tickSize: '0.01', negRisk: false, version: 1 },
    );
    const err = await apiError(client.postOrder(v1, OrderType.GTC));
    assert.equal(err.status, 400);
    assert.match(err.message, /order_version_mismatch/);
  });

  it('when the next order is set to be delayed, then it answers delayed and matches when released', async () => {
    const [m] = newMarket();
    const yes = m!.tokenIds[0];
    const signer = newSigner();
    await fundAndApprove(signer.account.address);
    const { client } = await tradingClient(signer);
    await admin('/clob/delay', { count: 1, delay_ms: 60_000 });

    const resp = await client.createAndPostMarketOrder(
      { tokenID: yes, amount: 5, side: Side.BUY },
      undefined,
      OrderType.FOK,
    );
    assert.deepEqual([resp.success, resp.status, resp.tradeIDs], [true, 'delayed', []]);
    assert.equal((await client.getOrder(resp.orderID)).status, 'DELAYED');
    assert.deepEqual(await admin('/clob/delayed/release'), { released: 1 });
    const order = await client.getOrder(resp.orderID);
    assert.equal(order.status, 'MATCHED');
    assert.equal((await client.getTrades({ id: order.associate_trades[0] })).length, 1);
    // The switch was for one order only.
    const next = await client.createAndPostMarketOrder(
      { tokenID: yes, amount: 5, side: Side.BUY },
      undefined,
      OrderType.FOK,
    );
    assert.equal(next.status, 'matched');
  });

  it('when a wallet has no funds or no approval, then orders are refused with not enough balance / allowance', async () => {
    const [m] = newMarket();
    const yes = m!.tokenIds[0];
    const poor = newSigner();
    const { client } = await tradingClient(poor);
    let err = await apiError(
      client.createAndPostOrder({ tokenID: yes, price: 0.4, size: 10, side: Side.BUY }),
    );
    assert.equal(err.status, 400);
    assert.match(err.message, /^not enough balance \/ allowance/);

    const unapproved = newSigner();
    await admin(`/wallets/${unapproved.account.address}/fund`, { pusd: 100 });
    const c2 = (await tradingClient(unapproved)).client;
    err = await apiError(c2.createAndPostOrder({ tokenID: yes, price: 0.4, size: 10, side: Side.BUY }));
    assert.match(err.message, /^not enough balance \/ allowance/);
    // Selling shares one does not hold.
    await admin(`/wallets/${unapproved.account.address}/approve`, {});
    err = await apiError(c2.createAndPostOrder({ tokenID: yes, price: 0.6, size: 10, side: Side.SELL }));
    assert.match(err.message, /^not enough balance \/ allowance/);
    // Open orders hold funds back: 100 pUSD cover one 150 × 0.4 bid (60), not two.
    await c2.createAndPostOrder({ tokenID: yes, price: 0.4, size: 150, side: Side.BUY });
    err = await apiError(c2.createAndPostOrder({ tokenID: yes, price: 0.4, size: 150, side: Side.BUY }));
    assert.match(err.message, /^not enough balance \/ allowance/);
  });

  it('when a FOK cannot fill completely it is killed, while a FAK fills what the price allows', async () => {
    const [m] = newMarket();
    const yes = m!.tokenIds[0];
    const signer = newSigner();
    await fundAndApprove(signer.account.address, 100_000);
    const { client } = await tradingClient(signer);
    const book = await client.getOrderBook(yes);
    const best = book.asks.at(-1)!;

    const err = await apiError(
      client.createAndPostMarketOrder(
        { tokenID: yes, amount: 10_000, price: Number(best.price), side: Side.BUY },
        undefined,
        OrderType.FOK,
      ),
    );
    assert.equal(err.message, "order couldn't be fully filled. FOK orders are fully filled or killed.");

    const fak = await client.createAndPostMarketOrder(
      { tokenID: yes, amount: 10_000, price: Number(best.price), side: Side.BUY, orderType: OrderType.FAK },
      undefined,
      OrderType.FAK,
    );
    assert.equal(fak.status, 'matched');
    assert.equal(fak.takingAmount, best.size, 'the whole best level and nothing beyond the limit');
    const order = await client.getOrder(fak.orderID);
    assert.deepEqual([order.status, order.order_type], ['MATCHED', 'FAK']);
    assert.ok((await client.getOrderBook(yes)).asks.every((a) => a.price !== best.price));
  });

  it('when orders go as a batch, then each gets its own answer and refusals carry errorMsg', async () => {
    const [m] = newMarket();
    const yes = m!.tokenIds[0];
    const signer = newSigner();
    await fundAndApprove(signer.account.address);
    const { client } = await tradingClient(signer);
    const ok = await client.createOrder({ tokenID: yes, price: 0.41, size: 10, side: Side.BUY });
    const tooSmall = await client.createOrder({ tokenID: yes, price: 0.42, size: 1, side: Side.BUY });
    const [a, b] = await client.postOrders([
      { order: ok, orderType: OrderType.GTC },
      { order: tooSmall, orderType: OrderType.GTC },
    ]);
    assert.deepEqual([a!.success, a!.status], [true, 'live']);
    assert.deepEqual([b!.success, b!.errorMsg], [false, 'order is invalid. Size lower than the minimum']);
    // The same signed order twice is a duplicate.
    const [dup] = await client.postOrders([{ order: ok, orderType: OrderType.GTC }]);
    assert.match(dup!.errorMsg, /^order is invalid. Duplicated/);
  });

  it('when open orders span pages, then the client follows the cursors; cancel-market-orders and cancel-all clear them', async () => {
    const [m, other] = [...newMarket(), ...newMarket()];
    const signer = newSigner();
    await fundAndApprove(signer.account.address);
    const { client } = await tradingClient(signer);
    await admin('/clob/settings', { page_size: 2 });
    for (const price of [0.3, 0.31, 0.32, 0.33]) {
      await client.createAndPostOrder({ tokenID: m!.tokenIds[0], price, size: 5, side: Side.BUY });
    }
    await client.createAndPostOrder({ tokenID: other!.tokenIds[0], price: 0.3, size: 5, side: Side.BUY });
    assert.equal((await client.getOpenOrders()).length, 5);
    assert.equal((await client.getOpenOrders(undefined, true)).length, 2, 'first page only');

    const byMarket = await client.cancelMarketOrders({ market: m!.conditionId });
    assert.equal(byMarket.canceled.length, 4);
    assert.equal((await client.getOpenOrders()).length, 1);
    const all = await client.cancelAll();
    assert.equal(all.canceled.length, 1);
    assert.deepEqual(await client.getOpenOrders(), []);
  });

  it('when a neg-risk market is traded, then the client signs for the neg-risk exchange and the order fills', async () => {
    const markets = newMarket([0.5, 0.3, 0.2], ['A', 'B', 'C']);
    const yes = markets[0]!.tokenIds[0];
    const signer = newSigner();
    await fundAndApprove(signer.account.address);
    const { client } = await tradingClient(signer);
    assert.equal(await client.getNegRisk(yes), true);
    const resp = await client.createAndPostMarketOrder(
      { tokenID: yes, amount: 5, side: Side.BUY },
      undefined,
      OrderType.FOK,
    );
    assert.equal(resp.status, 'matched');
    const pusd = await client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    assert.equal(BigInt(pusd.balance), 1_000_000_000n - units(resp.makingAmount));
  });

  it('when proxy (type 1) and deposit-wallet (type 3) orders come from the client, then they trade for the funder', async () => {
    const [m] = newMarket();
    const yes = m!.tokenIds[0];
    const signer = newSigner();
    const proxy = proxyWalletOf(signer.account.address);
    await fundAndApprove(proxy);
    const { creds } = await tradingClient(signer);
    const viaProxy = (
      await tradingClient(signer, { creds, signatureType: SignatureTypeV2.POLY_PROXY, funderAddress: proxy })
    ).client;
    const resp = await viaProxy.createAndPostMarketOrder(
      { tokenID: yes, amount: 5, side: Side.BUY },
      undefined,
      OrderType.FOK,
    );
    assert.equal(resp.status, 'matched');
    assert.equal((await viaProxy.getOrder(resp.orderID)).maker_address, proxy);
    const proxyPusd = await viaProxy.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    assert.equal(BigInt(proxyPusd.balance), 1_000_000_000n - units(resp.makingAmount));

    // A funder that is not this EOA's proxy is refused.
    const stranger = newSigner().account.address;
    await fundAndApprove(stranger);
    const wrong = (
      await tradingClient(signer, {
        creds,
        signatureType: SignatureTypeV2.POLY_PROXY,
        funderAddress: stranger,
      })
    ).client;
    const err = await apiError(
      wrong.createAndPostOrder({ tokenID: yes, price: 0.4, size: 10, side: Side.BUY }),
    );
    assert.equal(err.message, 'invalid signature');

    // Deposit wallet: maker = signer = the wallet, ERC-7739-wrapped signature of the key's EOA.
    // The exchange's ERC-1271 check needs a deployed wallet of that owner: an address with no
    // wallet behind it is refused, whoever signed.
    const undeployed = newSigner().account.address;
    await fundAndApprove(undeployed);
    const viaNothing = (
      await tradingClient(signer, {
        creds,
        signatureType: SignatureTypeV2.POLY_1271,
        funderAddress: undeployed,
      })
    ).client;
    const refused = await apiError(
      viaNothing.createAndPostOrder({ tokenID: yes, price: 0.4, size: 10, side: Side.BUY }),
    );
    assert.equal(refused.message, 'invalid signature');
    const depositWallet = emu.state.depositWallets.deploy(signer.account!.address).address;
    await fundAndApprove(depositWallet);
    const viaDeposit = (
      await tradingClient(signer, {
        creds,
        signatureType: SignatureTypeV2.POLY_1271,
        funderAddress: depositWallet,
      })
    ).client;
    const d = await viaDeposit.createAndPostMarketOrder(
      { tokenID: yes, amount: 5, side: Side.BUY },
      undefined,
      OrderType.FOK,
    );
    assert.equal(d.status, 'matched');
    const dPusd = await viaDeposit.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    assert.equal(BigInt(dPusd.balance), 1_000_000_000n - units(d.makingAmount));
  });

  it('when one wallet crosses the resting order of another, then both ledgers move and both see the trade', async () => {
    const [m] = newMarket();
    const yes = m!.tokenIds[0];
    const seller = newSigner();
    const buyer = newSigner();
    await fundAndApprove(seller.account.address, 0, { [yes]: 10 });
    await fundAndApprove(buyer.account.address, 100);
    const s = (await tradingClient(seller)).client;
    const b = (await tradingClient(buyer)).client;
    // 0.50 sits inside the house spread (0.49 / 0.51): it rests, and is the best ask.
    const ask = await s.createAndPostOrder({ tokenID: yes, price: 0.5, size: 10, side: Side.SELL });
    assert.equal(ask.status, 'live');
    const bid = await b.createAndPostOrder({ tokenID: yes, price: 0.51, size: 6, side: Side.BUY });
    assert.deepEqual([bid.status, bid.makingAmount, bid.takingAmount], ['matched', '3', '6']);

    const [takerView] = await b.getTrades({ id: bid.tradeIDs![0] });
    const [makerView] = await s.getTrades({ id: bid.tradeIDs![0] });
    assert.deepEqual([takerView!.trader_side, makerView!.trader_side], ['TAKER', 'MAKER']);
    assert.equal(makerView!.maker_orders[0]!.order_id, ask.orderID);
    assert.equal((await s.getOrder(ask.orderID)).size_matched, '6');
    const pusd = (c: ClobClient) => c.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    const shares = (c: ClobClient) =>
      c.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: yes });
    assert.deepEqual(
      [
        (await pusd(s)).balance,
        (await shares(s)).balance,
        (await pusd(b)).balance,
        (await shares(b)).balance,
      ],
      ['3000000', '4000000', '97000000', '6000000'],
    );

    // The Data API shows the fill to the buyer (taker); the seller's maker fill only with takerOnly=false.
    const data = async (user: string, q = '') =>
      (await (await fetch(`${emu.dataUrl}/trades?user=${user}${q}`)).json()) as Json[];
    const [row] = await data(buyer.account.address);
    assert.deepEqual(
      [row.side, row.size, row.price, row.asset, row.transactionHash],
      ['BUY', 6, 0.5, yes, takerView!.transaction_hash],
    );
    assert.deepEqual(await data(seller.account.address), []);
    assert.equal((await data(seller.account.address, '&takerOnly=false'))[0].side, 'SELL');
  });

  it('when a GTD order outlives its expiration on the emulator clock, then it is no longer open', async () => {
    const [m] = newMarket();
    const signer = newSigner();
    await fundAndApprove(signer.account.address);
    const { client } = await tradingClient(signer);
    const soon = Math.floor(Date.now() / 1000) + 30;
    const early = await apiError(
      client.createAndPostOrder(
        { tokenID: m!.tokenIds[0], price: 0.4, size: 10, side: Side.BUY, expiration: soon },
        undefined,
        OrderType.GTD,
      ),
    );
    assert.equal(early.message, 'invalid expiration', 'a minute of security buffer');
    const resp = await client.createAndPostOrder(
      { tokenID: m!.tokenIds[0], price: 0.4, size: 10, side: Side.BUY, expiration: soon + 120 },
      undefined,
      OrderType.GTD,
    );
    assert.equal(resp.status, 'live');
    assert.equal((await client.getOrder(resp.orderID)).expiration, String(soon + 120));
    await admin('/clock', { advance_ms: 200_000 });
    assert.equal((await client.getOrder(resp.orderID)).status, 'CANCELED');
    assert.deepEqual(await client.getOpenOrders(), []);
  });

  it('when a post-only order would cross, or the market stops accepting orders, then the order is refused', async () => {
    const [m] = newMarket();
    const yes = m!.tokenIds[0];
    const signer = newSigner();
    await fundAndApprove(signer.account.address);
    const { client } = await tradingClient(signer);
    const crossing = await apiError(
      client.createAndPostOrder(
        { tokenID: yes, price: 0.55, size: 10, side: Side.BUY },
        undefined,
        OrderType.GTC,
        true,
      ),
    );
    assert.equal(crossing.message, 'invalid post-only order: order crosses book');
    const maker = await client.createAndPostOrder(
      { tokenID: yes, price: 0.45, size: 10, side: Side.BUY },
      undefined,
      OrderType.GTC,
      true,
    );
    assert.equal(maker.status, 'live');
    await admin(`/markets/${m!.conditionId}/accepting-orders`, { accepting: false });
    const paused = await apiError(
      client.createAndPostOrder({ tokenID: yes, price: 0.45, size: 10, side: Side.BUY }),
    );
    assert.equal(paused.message, 'the market is not yet ready to process new orders');
  });

  it('when the CLOB is made slow for order posts, then the order still goes through, late', async () => {
    const [m] = newMarket();
    const signer = newSigner();
    await fundAndApprove(signer.account.address);
    const { client } = await tradingClient(signer);
    await admin('/faults', { mode: 'slow', path_prefix: '/clob/order', delay_ms: 300, count: 1 });
    assert.equal((await admin('/faults', undefined, 'GET')).length, 1, 'the slow rule is armed');
    const resp = await client.createAndPostOrder({
      tokenID: m!.tokenIds[0],
      price: 0.4,
      size: 10,
      side: Side.BUY,
    });
    assert.equal(resp.status, 'live');
    // The order post is the request the rule held back (an exhausted rule disappears).
    assert.deepEqual(await admin('/faults', undefined, 'GET'), []);
  });

  it('when a taker buys on a fee-enabled market, then the fee is charged on top and shown on the trade', async () => {
    const m = [...emu.state.markets.values()].find((x) => x.feesEnabled && !x.closed && x.acceptingOrders);
    assert.ok(m, 'a rolling crypto market is open');
    const yes = m.tokenIds[0];
    const signer = newSigner();
    await fundAndApprove(signer.account.address);
    const { client } = await tradingClient(signer);
    const resp = await client.createAndPostMarketOrder(
      { tokenID: yes, amount: 10, side: Side.BUY },
      undefined,
      OrderType.FOK,
    );
    const [trade] = await client.getTrades({ id: resp.tradeIDs![0] });
    const p = Number(trade!.price);
    const fee = Number(resp.takingAmount) * 0.25 * (p * (1 - p)) ** 2;
    assert.ok(Number(trade!.fee_rate_bps) > 0);
    const pusd = await client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL });
    const paid = 1_000 - Number(pusd.balance) / 1e6;
    assert.ok(
      Math.abs(paid - Number(resp.makingAmount) - fee) < 2e-6,
      `${paid} vs ${resp.makingAmount} + ${fee}`,
    );
  });

  it('when a trade is set to FAILED, then both sides get their money back', async () => {
    const [m] = newMarket();
    const yes = m!.tokenIds[0];
    const signer = newSigner();
    await fundAndApprove(signer.account.address);
    const { client } = await tradingClient(signer);
    const resp = await client.createAndPostMarketOrder(
      { tokenID: yes, amount: 5, side: Side.BUY },
      undefined,
      OrderType.FOK,
    );
    const failed = await admin(`/clob/trades/${resp.tradeIDs![0]}/status`, { status: 'FAILED' });
    assert.equal(failed.status, 'FAILED');
    assert.equal(
      (await client.getBalanceAllowance({ asset_type: AssetType.COLLATERAL })).balance,
      '1000000000',
    );
    const shares = await client.getBalanceAllowance({ asset_type: AssetType.CONDITIONAL, token_id: yes });
    assert.equal(shares.balance, '0');
  });

  it('when credentials are wrong or trading is switched off, then the CLOB answers 401 / 503', async () => {
    const [m] = newMarket();
    const signer = newSigner();
    await fundAndApprove(signer.account.address);
    const { client, creds } = await tradingClient(signer);
    const forged = (
      await tradingClient(signer, { creds: { ...creds, secret: Buffer.alloc(32, 7).toString('base64') } })
    ).client;
    const unauthorized = await apiError(forged.getOpenOrders());
    assert.deepEqual([unauthorized.status, unauthorized.message], [401, 'Unauthorized/Invalid api key']);

    const { orderID } = await client.createAndPostOrder({
      tokenID: m!.tokenIds[0],
      price: 0.4,
      size: 10,
      side: Side.BUY,
    });
    await admin('/clob/settings', { trading: 'cancel-only' });
    const refused = await apiError(
      client.createAndPostOrder({ tokenID: m!.tokenIds[0], price: 0.41, size: 10, side: Side.BUY }),
    );
    assert.equal(refused.status, 503);
    assert.match(refused.message, /cancel-only/);
    assert.deepEqual((await client.cancelOrder({ orderID })).canceled, [orderID]);
    await admin('/clob/settings', { trading: 'disabled' });
    assert.equal((await apiError(client.cancelAll())).status, 503);
  });
});
