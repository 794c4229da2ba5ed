import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { Connection, Keypair, PublicKey, SendTransactionError, VersionedTransaction } from '@solana/web3.js';
import {
  FIXTURES,
  TOKEN_2022_PROGRAM,
  USDC_MINT,
  encodeBase58,
  marketAccounts,
  startKalshiEmulator,
  type KalshiEmulator,
} from './kalshi/index.js';
import { highTemperatureEvent } from './kalshi/temperature-event.js';

// Self-tests of the Kalshi emulator (reference shared/reference/kalshi.md §5): Kalshi market data in
// both wire modes, DFlow metadata and trade API, Proof, and a Solana RPC that web3.js 1.x talks to
// unchanged — a transaction from /order deserialises, signs and lands; a tampered, foreign-signed
// or expired one is refused with Solana's own words.

type Json = any; // eslint-disable-line @typescript-eslint/no-explicit-any

// A fixed clock the tests move by hand; blocks move only through /__admin/blocks/advance.
const T0 = Date.UTC(2026, 1, 10, 15, 0, 0);
let clockMs = T0;
let emu: KalshiEmulator;
let conn: Connection;

// The deterministic test keys of kalshi.md §3.1.
const alice = Keypair.fromSeed(new Uint8Array(32).fill(1));
const mallory = Keypair.fromSeed(new Uint8Array(32).fill(0));
const ALICE = alice.publicKey.toBase58();

async function call(method: string, url: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(url, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
const get = (url: string) => call('GET', url);
const admin = async (path: string, body: unknown = {}) => {
  const res = await call('POST', `${emu.adminUrl}${path}`, body);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
};
const kalshi = (path: string) => get(`${emu.kalshiUrl}${path}`);
const rpc = async (method: string, params: unknown[]) =>
  (await call('POST', emu.rpcUrl, { jsonrpc: '2.0', id: 1, method, params })).body;

const mints = (ticker: string) => marketAccounts(ticker, USDC_MINT);
const usdcOf = async (owner: string) => {
  const res = await conn.getParsedTokenAccountsByOwner(new PublicKey(owner), {
    mint: new PublicKey(USDC_MINT),
  });
  return res.value.reduce((sum, a) => sum + BigInt(a.account.data.parsed.info.tokenAmount.amount), 0n);
};

function orderUrl(q: Record<string, string | number>): string {
  return `${emu.dflowTradeUrl}/order?${new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]))}`;
}
/** A buy of `usdc` (atomic) of YES on the binary fixture, with Alice's transaction. */
const buyOrder = (usdc = 5_000_000, user = ALICE, ticker: string = FIXTURES.binary) =>
  get(
    orderUrl({ inputMint: USDC_MINT, outputMint: mints(ticker).yesMint, amount: usdc, userPublicKey: user }),
  );

async function signedFromOrder(order: Json, signer = alice): Promise<VersionedTransaction> {
  const tx = VersionedTransaction.deserialize(Buffer.from(order.transaction, 'base64'));
  tx.sign([signer]);
  return tx;
}

async function sendError(tx: VersionedTransaction | Uint8Array): Promise<string> {
  try {
    await conn.sendRawTransaction(tx instanceof VersionedTransaction ? tx.serialize() : tx);
  } catch (err) {
    assert.ok(err instanceof SendTransactionError, String(err));
    return err.message;
  }
  assert.fail('the RPC accepted the transaction');
}

const orderStatus = (signature: string) => get(`${emu.dflowTradeUrl}/order-status?signature=${signature}`);

describe('Kalshi emulator', () => {
  before(async () => {
    emu = await startKalshiEmulator({ now: () => clockMs });
    conn = new Connection(emu.rpcUrl, 'confirmed');
  });
  after(async () => {
    await emu.close();
  });
  beforeEach(async () => {
    clockMs = T0;
    await admin('/reset');
    // Blocks move by hand only, so a blockhash expires exactly when a test says so.
    await admin('/settings', { block_ms: null });
  });

  describe('Kalshi market data', () => {
    it('when a market is fetched, then it has the current *_dollars/*_fp strings and no integer-cent fields', async () => {
      const { status, body } = await kalshi(`/markets/${FIXTURES.binary}`);
      assert.equal(status, 200);
      const m = body.market;
      assert.equal(m.status, 'active');
      assert.equal(m.result, '');
      assert.equal(m.yes_bid_dollars, '0.4100');
      assert.equal(m.yes_ask_dollars, '0.4300');
      assert.equal(m.no_bid_dollars, '0.5700');
      assert.equal(m.no_ask_dollars, '0.5900');
      assert.equal(m.last_price_dollars, '0.4200');
      assert.match(m.volume_fp, /^\d+\.\d{2}$/);
      assert.match(m.open_interest_fp, /^\d+\.\d{2}$/);
      assert.ok(Date.parse(m.close_time) > T0);
      assert.ok(m.rules_primary.length > 0);
      for (const legacy of ['yes_bid', 'yes_ask', 'last_price', 'volume', 'open_interest'])
        assert.ok(!(legacy in m), legacy);
    });

    it('when a fixture is in legacy mode, then it carries integer cents only, with the same values', async () => {
      const legacy = (await kalshi(`/markets/${FIXTURES.legacy}`)).body.market;
      assert.equal(legacy.yes_bid, 34);
      assert.equal(legacy.yes_ask, 36);
      assert.equal(legacy.last_price, 35);
      assert.equal(typeof legacy.volume, 'number');
      assert.ok(!('yes_bid_dollars' in legacy));
      // The same market switched to `both` parses to identical values.
      await admin(`/markets/${FIXTURES.legacy}/wire`, { mode: 'both' });
      const both = (await kalshi(`/markets/${FIXTURES.legacy}`)).body.market;
      assert.equal(Number(both.yes_bid_dollars), both.yes_bid / 100);
      assert.equal(Number(both.last_price_dollars), both.last_price / 100);
      assert.equal(Number(both.volume_fp), both.volume);
      // Legacy order book: integer cents.
      await admin(`/markets/${FIXTURES.legacy}/wire`, { mode: 'legacy' });
      const book = (await kalshi(`/markets/${FIXTURES.legacy}/orderbook`)).body;
      assert.deepEqual(book.orderbook.yes.at(-1), [34, 250]);
    });

    it('when a ticker is lower-case or unknown, then it is a 404', async () => {
      assert.equal((await kalshi(`/markets/${FIXTURES.binary.toLowerCase()}`)).status, 404);
      const unknown = await kalshi('/markets/KXNOPE-26-T1');
      assert.equal(unknown.status, 404);
      assert.equal(unknown.body.error.code, 'not_found');
    });

    it('when the weather event is fetched with nested markets, then its brackets share the title and differ by yes_sub_title', async () => {
      const { body } = await kalshi(`/events/${FIXTURES.weatherEvent}?with_nested_markets=true`);
      assert.equal(body.event.mutually_exclusive, true);
      assert.deepEqual(
        body.event.markets.map((m: Json) => m.ticker),
        [...FIXTURES.weatherBrackets],
      );
      assert.equal(new Set(body.event.markets.map((m: Json) => m.title)).size, 1);
      assert.equal(new Set(body.event.markets.map((m: Json) => m.yes_sub_title)).size, 5);
      assert.equal(body.markets.length, 5);
      const flat = (await kalshi(`/events/${FIXTURES.weatherEvent}`)).body;
      assert.ok(!('markets' in flat.event));
      const bySeries = (await kalshi('/events?series_ticker=KXHIGHNY&status=open&with_nested_markets=true'))
        .body;
      assert.deepEqual(
        bySeries.events.map((e: Json) => e.event_ticker),
        [FIXTURES.weatherEvent],
      );
    });

    it('when /markets is filtered and paged, then the status vocabulary maps and the last page has an empty cursor', async () => {
      const settled = (await kalshi('/markets?status=settled')).body.markets.map((m: Json) => m.ticker);
      assert.deepEqual(settled, [FIXTURES.finalized]);
      const unopened = (await kalshi('/markets?status=unopened')).body.markets.map((m: Json) => m.ticker);
      assert.deepEqual(unopened, [FIXTURES.initialized]);
      const byEvent = (await kalshi(`/markets?event_ticker=${FIXTURES.weatherEvent}&limit=2`)).body;
      assert.equal(byEvent.markets.length, 2);
      assert.notEqual(byEvent.cursor, '');
      const seen = [...byEvent.markets];
      let cursor = byEvent.cursor;
      while (cursor) {
        const next = (await kalshi(`/markets?event_ticker=${FIXTURES.weatherEvent}&limit=2&cursor=${cursor}`))
          .body;
        seen.push(...next.markets);
        cursor = next.cursor;
      }
      assert.equal(seen.length, 5);
      assert.equal((await kalshi('/markets?status=bogus')).status, 400);
      assert.equal((await kalshi('/markets?limit=1001')).status, 400);
    });

    it('when the orderbook is read, then it has bids only, ascending, and best YES ask = 1 − best NO bid', async () => {
      const { market } = (await kalshi(`/markets/${FIXTURES.binary}`)).body;
      const { orderbook_fp: book } = (await kalshi(`/markets/${FIXTURES.binary}/orderbook`)).body;
      const prices = book.yes_dollars.map(([p]: [string]) => Number(p));
      assert.deepEqual(
        prices,
        [...prices].sort((a, b) => a - b),
      );
      assert.equal(book.yes_dollars.at(-1)[0], market.yes_bid_dollars);
      assert.equal((1 - Number(book.no_dollars.at(-1)[0])).toFixed(4), market.yes_ask_dollars);
      assert.equal(
        (await kalshi(`/markets/${FIXTURES.binary}/orderbook?depth=1`)).body.orderbook_fp.yes_dollars.length,
        1,
      );
      const empty = (await kalshi(`/markets/${FIXTURES.emptyBook}/orderbook`)).body.orderbook_fp;
      assert.deepEqual(empty, { yes_dollars: [], no_dollars: [] });
      const emptyMarket = (await kalshi(`/markets/${FIXTURES.emptyBook}`)).body.market;
      assert.equal(emptyMarket.yes_bid_dollars, '0.0000');
      assert.equal(emptyMarket.yes_ask_dollars, '1.0000');
    });

    it('when a market is past the historical cutoff, then only /historical serves it', async () => {
      assert.equal((await kalshi(`/markets/${FIXTURES.historical}`)).status, 404);
      const { body } = await kalshi(`/historical/markets/${FIXTURES.historical}`);
      assert.equal(body.market.status, 'finalized');
      assert.equal(body.market.result, 'yes');
      assert.equal(body.market.settlement_value_dollars, '1.0000');
    });
  });

  describe('DFlow metadata and Proof', () => {
    it('when a market is looked up by ticker, by mint or in a batch, then the mints agree with the Kalshi fixture', async () => {
      const m = (await get(`${emu.dflowMetadataUrl}/api/v1/market/${FIXTURES.binary}`)).body;
      assert.equal(m.status, 'active');
      assert.equal(m.yesAsk, '0.4300');
      assert.equal(m.noBid, '0.5700');
      assert.ok(!('settlementMint' in m));
      const usdc = m.accounts[USDC_MINT];
      assert.deepEqual(
        { yesMint: usdc.yesMint, noMint: usdc.noMint, marketLedger: usdc.marketLedger },
        mints(FIXTURES.binary),
      );
      assert.equal(usdc.isInitialized, true);
      const byMint = (await get(`${emu.dflowMetadataUrl}/api/v1/market/by-mint/${usdc.noMint}`)).body;
      assert.equal(byMint.ticker, FIXTURES.binary);
      const batch = (
        await call('POST', `${emu.dflowMetadataUrl}/api/v1/markets/batch`, {
          tickers: [FIXTURES.scalar, 'NOPE'],
          mints: [usdc.yesMint],
        })
      ).body;
      assert.deepEqual(
        batch.markets.map((x: Json) => x.ticker).sort(),
        [FIXTURES.binary, FIXTURES.scalar].sort(),
      );
      const filtered = (
        await call('POST', `${emu.dflowMetadataUrl}/api/v1/filter_outcome_mints`, {
          addresses: [usdc.yesMint, USDC_MINT],
        })
      ).body;
      assert.deepEqual(filtered.outcomeMints, [usdc.yesMint]);
      const empty = (await get(`${emu.dflowMetadataUrl}/api/v1/market/${FIXTURES.emptyBook}`)).body;
      assert.equal(empty.yesBid, null);
      assert.equal(empty.yesAsk, null);
    });

    it('when a wallet is KYC-verified by the admin, then Proof says so and only then may it buy (sells are not gated)', async () => {
      assert.deepEqual((await get(`${emu.proofUrl}/verify/${ALICE}`)).body, { verified: false });
      const refused = await buyOrder();
      assert.equal(refused.status, 400);
      assert.equal(refused.body.code, 'unverified_wallet_not_allowed');
      assert.match(refused.body.details.deepLink, /^https:\/\/dflow\.net\/proof\?wallet=/);
      // A quote without userPublicKey has no transaction and no KYC check.
      const quote = await get(
        orderUrl({ inputMint: USDC_MINT, outputMint: mints(FIXTURES.binary).yesMint, amount: 5_000_000 }),
      );
      assert.equal(quote.status, 200);
      assert.ok(!('transaction' in quote.body));
      // A sell needs no KYC.
      const sell = await get(
        orderUrl({
          inputMint: mints(FIXTURES.binary).yesMint,
          outputMint: USDC_MINT,
          amount: 2_000_000,
          userPublicKey: ALICE,
        }),
      );
      assert.equal(sell.status, 200, JSON.stringify(sell.body));
      assert.equal(sell.body.outAmount, '820000');
      await admin(`/kyc/${ALICE}`);
      assert.deepEqual((await get(`${emu.proofUrl}/verify/${ALICE}`)).body, { verified: true });
      const ok = await buyOrder();
      assert.equal(ok.status, 200);
      assert.equal(typeof ok.body.transaction, 'string');
    });
  });

  describe('DFlow /order refusals', () => {
    beforeEach(async () => {
      await admin(`/kyc/${ALICE}`);
    });
    const buy = (q: Record<string, string | number>) =>
      get(
        orderUrl({
          inputMint: USDC_MINT,
          outputMint: mints(FIXTURES.binary).yesMint,
          amount: 5_000_000,
          userPublicKey: ALICE,
          ...q,
        }),
      );

    it('when the parameters are wrong, then DFlow answers its 400 codes', async () => {
      const cases: [Record<string, string | number>, string][] = [
        [{ amount: 0 }, 'requested_input_amount_is_zero'],
        [{ amount: '8.5' }, 'route_not_found'],
        [{ amount: 100 }, 'route_not_found'], // less than one contract
        [{ userPublicKey: 'not-base58!' }, 'invalid_user_public_key'],
        [{ inputMint: 'xyz' }, 'invalid_input_mint'],
        [{ outputMint: USDC_MINT }, 'same_input_and_output_mint'],
        [
          { outputMint: mints(FIXTURES.scalar).yesMint, inputMint: mints(FIXTURES.binary).noMint },
          'route_not_found',
        ],
        [{ slippageBps: 'lots' }, 'invalid_slippage_bps'],
        [
          { slippageBps: 100, predictionMarketSlippageBps: 50 },
          'prediction_slippage_bps_below_routing_slippage',
        ],
        [{ destinationWallet: ALICE, destinationTokenAccount: ALICE }, 'both_destination_params_specified'],
        [
          { sponsor: ALICE, predictionMarketInitPayer: ALICE },
          'both_sponsor_and_prediction_market_init_payer_specified',
        ],
      ];
      for (const [q, code] of cases) {
        const res = await buy(q);
        assert.equal(res.status, 400, JSON.stringify(q));
        assert.equal(res.body.code, code, JSON.stringify(q));
        assert.equal(typeof res.body.msg, 'string');
      }
    });

    it('when the market is not active, the book is empty or Kalshi is in maintenance, then route_not_found', async () => {
      await admin(`/markets/${FIXTURES.binary}/lifecycle`, { status: 'inactive' });
      assert.equal((await buy({})).body.code, 'route_not_found');
      await admin(`/markets/${FIXTURES.binary}/lifecycle`, { status: 'active' });
      assert.equal((await buy({})).status, 200);
      await admin('/settings', { maintenance: 'on' });
      assert.equal((await buy({})).body.code, 'route_not_found');
      await admin('/settings', { maintenance: 'off' });
      const empty = await buy({ outputMint: mints(FIXTURES.emptyBook).yesMint });
      assert.equal(empty.body.code, 'route_not_found');
    });
  });

  describe('signing with web3.js and the Solana RPC', () => {
    beforeEach(async () => {
      await admin(`/kyc/${ALICE}`);
      await admin(`/wallets/${ALICE}/fund`, { usdc: 100, sol: 1 });
    });

    it('when Alice signs the /order transaction with web3.js and sends it, then it lands, the order opens, fills and pays out', async () => {
      const { body: order } = await buyOrder(5_000_000);
      assert.equal(order.executionMode, 'async');
      assert.equal(order.outAmount, '11000000'); // 11 whole contracts at 0.43
      const tx = VersionedTransaction.deserialize(Buffer.from(order.transaction, 'base64'));
      assert.equal(tx.version, 0);
      assert.equal(tx.message.header.numRequiredSignatures, 1);
      assert.equal(tx.message.staticAccountKeys[0]!.toBase58(), ALICE);
      assert.ok(tx.signatures[0]!.every((b) => b === 0));
      assert.equal((await rpc('isBlockhashValid', [tx.message.recentBlockhash])).result.value, true);
      tx.sign([alice]);
      const signature = await conn.sendRawTransaction(tx.serialize());
      assert.equal(signature, encodeBase58(tx.signatures[0]!));

      const statuses = await conn.getSignatureStatuses([signature], { searchTransactionHistory: true });
      assert.equal(statuses.value[0]?.confirmationStatus, 'confirmed');
      assert.equal(statuses.value[0]?.err, null);
      assert.equal(await usdcOf(ALICE), 95_000_000n); // escrowed
      assert.equal((await orderStatus(signature)).body.status, 'open');

      await admin('/orders/fill-now');
      const done = (await orderStatus(signature)).body;
      assert.equal(done.status, 'closed');
      assert.equal(done.outAmount, '11000000');
      assert.deepEqual(done.fills, [
        {
          signature,
          inputMint: USDC_MINT,
          inAmount: '4730000',
          outputMint: order.outputMint,
          outAmount: '11000000',
        },
      ]);
      assert.deepEqual(done.reverts, [{ signature, mint: USDC_MINT, amount: '270000' }]);
      assert.equal(await usdcOf(ALICE), 95_270_000n);
      const outcome = await conn.getParsedTokenAccountsByOwner(alice.publicKey, {
        programId: new PublicKey(TOKEN_2022_PROGRAM),
      });
      assert.equal(outcome.value.length, 1);
      assert.equal(outcome.value[0]!.account.data.parsed.info.mint, order.outputMint);
      assert.equal(outcome.value[0]!.account.data.parsed.info.tokenAmount.uiAmountString, '11');
      assert.equal(outcome.value[0]!.account.data.program, 'spl-token-2022');
      // SOL paid the fee and the outcome account's rent.
      assert.ok((await conn.getBalance(alice.publicKey)) < 1_000_000_000);
      // A resend of the same transaction is refused.
      assert.match(await sendError(tx), /This transaction has already been processed/);
    });

    it('when the order fills on the clock, then it goes open → pendingClose → closed', async () => {
      const tx = await signedFromOrder((await buyOrder()).body);
      const signature = await conn.sendRawTransaction(tx.serialize());
      assert.equal((await orderStatus(signature)).body.status, 'open');
      clockMs += 1_600;
      assert.equal((await orderStatus(signature)).body.status, 'pendingClose');
      clockMs += 500;
      assert.equal((await orderStatus(signature)).body.status, 'closed');
    });

    it('when the Python client signs with solders (as Simmer does), then the RPC accepts it', async function () {
      // solders is not an npm package: `npm test` installs it into .cache/solders-venv (scripts/setup.mjs),
      // or SOLDERS_PYTHON names a python that has it. Skipped only outside CI, where Python may be missing.
      const python = process.env.SOLDERS_PYTHON ?? '.cache/solders-venv/bin/python';
      if (!existsSync(python)) {
        assert.ok(
          !process.env.CI,
          `no solders python at ${python}: npm test installs it (scripts/setup.mjs)`,
        );
        return this.skip();
      }
      const { body: order } = await buyOrder();
      // Simmer's signing: sign the versioned wire bytes of the message, keep other slots, populate.
      const script = [
        'import base64, sys',
        'from solders.keypair import Keypair',
        'from solders.message import to_bytes_versioned',
        'from solders.transaction import VersionedTransaction',
        'tx = VersionedTransaction.from_bytes(base64.b64decode(sys.argv[1]))',
        'kp = Keypair.from_seed(bytes([1] * 32))',
        'sig = kp.sign_message(to_bytes_versioned(tx.message))',
        'keys = tx.message.account_keys[: tx.message.header.num_required_signatures]',
        'sigs = [sig if k == kp.pubkey() else s for k, s in zip(keys, tx.signatures)]',
        'print(base64.b64encode(bytes(VersionedTransaction.populate(tx.message, sigs))).decode())',
      ].join('\n');
      const signed = execFileSync(python, ['-c', script, order.transaction], { encoding: 'utf8' }).trim();
      const signature = await conn.sendRawTransaction(Buffer.from(signed, 'base64'));
      assert.equal((await orderStatus(signature)).body.status, 'open');
    });

    it('when the transaction is sent base58-encoded through raw JSON-RPC, then it lands too', async () => {
      const tx = await signedFromOrder((await buyOrder()).body);
      const res = await rpc('sendTransaction', [encodeBase58(tx.serialize())]);
      assert.equal(res.result, encodeBase58(tx.signatures[0]!));
    });

    it('when the message is altered after signing, then the RPC refuses it with the signature-verification error', async () => {
      const tx = await signedFromOrder((await buyOrder()).body);
      const wire = tx.serialize();
      // One character of the memo that names the order (the message still parses).
      const at = Buffer.from(wire).indexOf('open-order');
      assert.ok(at > 0);
      wire[at] = wire[at]! ^ 0x01;
      assert.match(
        await sendError(wire),
        /Transaction simulation failed: Transaction did not pass signature verification/,
      );
      await admin('/settings', { signature_failure: 'verify' });
      const res = await rpc('sendTransaction', [
        Buffer.from(wire).toString('base64'),
        { encoding: 'base64' },
      ]);
      assert.deepEqual(res.error, { code: -32003, message: 'Transaction signature verification failure' });
    });

    it('when another key signs, then web3.js refuses to sign and a forged slot is refused by the RPC', async () => {
      const { body: order } = await buyOrder();
      const tx = VersionedTransaction.deserialize(Buffer.from(order.transaction, 'base64'));
      assert.throws(() => tx.sign([mallory]), /Cannot sign with non signer key/);
      // Mallory's signature over the right message, placed in Alice's slot.
      const forged = VersionedTransaction.deserialize(Buffer.from(order.transaction, 'base64'));
      const other = VersionedTransaction.deserialize(Buffer.from(order.transaction, 'base64'));
      other.message.staticAccountKeys[0] = mallory.publicKey;
      other.sign([mallory]);
      forged.addSignature(alice.publicKey, other.signatures[0]!);
      const res = await rpc('sendTransaction', [
        Buffer.from(forged.serialize()).toString('base64'),
        { encoding: 'base64' },
      ]);
      assert.equal(res.error.code, -32002);
      assert.equal(
        res.error.message,
        'Transaction simulation failed: Transaction did not pass signature verification',
      );
      // An unsigned transaction is refused the same way.
      assert.match(
        await sendError(VersionedTransaction.deserialize(Buffer.from(order.transaction, 'base64'))),
        /did not pass signature verification/,
      );
    });

    it('when the blockhash has expired, then the RPC answers "Blockhash not found" and the unlanded order expires', async () => {
      const { body: order } = await buyOrder();
      const tx = await signedFromOrder(order);
      // Sent with skipPreflight before expiry, but dropped: the order is pending.
      await admin('/faults', { mode: 'drop', count: 1 });
      const dropped = await conn.sendRawTransaction(tx.serialize(), { skipPreflight: true });
      assert.equal((await orderStatus(dropped)).body.status, 'pending');
      const height = await conn.getBlockHeight();
      await admin('/blocks/advance', { n: order.lastValidBlockHeight - height + 1 });
      assert.equal((await rpc('isBlockhashValid', [tx.message.recentBlockhash])).result.value, false);
      assert.match(await sendError(tx), /Transaction simulation failed: Blockhash not found/);
      assert.equal((await orderStatus(dropped)).body.status, 'expired');
      assert.equal(await usdcOf(ALICE), 100_000_000n);
    });

    it('when a wallet has no USDC account or too little USDC, then "Invalid account owner" / custom program error 0x1', async () => {
      const bob = Keypair.generate();
      const BOB = bob.publicKey.toBase58();
      await admin(`/kyc/${BOB}`);
      await admin(`/wallets/${BOB}/fund`, { sol: 0.1 });
      const none = await signedFromOrder((await buyOrder(5_000_000, BOB)).body, bob);
      const message = await sendError(none);
      assert.match(
        message,
        /Transaction simulation failed: Error processing Instruction 2: Invalid account owner/,
      );
      await admin(`/wallets/${BOB}/fund`, { usdc: 1 });
      const poor = await signedFromOrder((await buyOrder(5_000_000, BOB)).body, bob);
      assert.match(await sendError(poor), /Error processing Instruction 2: custom program error: 0x1/);
    });

    it('when the order is scripted to fail, then it ends failed with the whole input reverted', async () => {
      await admin('/orders/script', { outcome: 'fail' });
      const tx = await signedFromOrder((await buyOrder(5_000_000)).body);
      const signature = await conn.sendRawTransaction(tx.serialize());
      assert.equal(await usdcOf(ALICE), 95_000_000n);
      await admin('/orders/fill-now');
      const failed = (await orderStatus(signature)).body;
      assert.equal(failed.status, 'failed');
      assert.deepEqual(failed.reverts, [{ signature, mint: USDC_MINT, amount: '5000000' }]);
      assert.equal(failed.fills, undefined);
      assert.equal(await usdcOf(ALICE), 100_000_000n);
      assert.equal((await orderStatus('not-a-signature')).status, 400);
      assert.equal((await orderStatus(encodeBase58(new Uint8Array(64).fill(7)))).body.code, 'not_found');
    });

    it('when the market is finalized YES, then Kalshi and DFlow show it and the YES tokens redeem at $1 without KYC', async () => {
      const tx = await signedFromOrder((await buyOrder(5_000_000)).body);
      await conn.sendRawTransaction(tx.serialize());
      await admin('/orders/fill-now');
      await admin(`/kyc/${ALICE}`, { verified: false });
      for (const status of ['closed', 'determined', 'disputed', 'amended']) {
        await admin(`/markets/${FIXTURES.binary}/lifecycle`, { status, result: 'yes' });
        assert.equal((await kalshi(`/markets/${FIXTURES.binary}`)).body.market.status, status);
      }
      await admin(`/markets/${FIXTURES.binary}/lifecycle`, { status: 'finalized', result: 'yes' });
      const m = (await kalshi(`/markets/${FIXTURES.binary}`)).body.market;
      assert.equal(m.status, 'finalized');
      assert.equal(m.result, 'yes');
      assert.equal(m.settlement_value_dollars, '1.0000');
      assert.ok(Date.parse(m.settlement_ts) <= clockMs);
      const settled = (await kalshi('/markets?status=settled')).body.markets.map((x: Json) => x.ticker);
      assert.ok(settled.includes(FIXTURES.binary));
      const d = (await get(`${emu.dflowMetadataUrl}/api/v1/market/${FIXTURES.binary}`)).body;
      assert.equal(d.accounts[USDC_MINT].redemptionStatus, 'open');

      const redeem = await get(
        orderUrl({
          inputMint: mints(FIXTURES.binary).yesMint,
          outputMint: USDC_MINT,
          amount: 11_000_000,
          userPublicKey: ALICE,
        }),
      );
      assert.equal(redeem.status, 200, JSON.stringify(redeem.body));
      assert.equal(redeem.body.outAmount, '11000000');
      const signature = await conn.sendRawTransaction((await signedFromOrder(redeem.body)).serialize());
      await admin('/orders/fill-now');
      assert.equal((await orderStatus(signature)).body.status, 'closed');
      assert.equal(await usdcOf(ALICE), 95_270_000n + 11_000_000n);

      // The pre-3.x status word, when asked for.
      await admin(`/markets/${FIXTURES.binary}/lifecycle`, { status: 'finalized', legacy_settled: true });
      assert.equal((await kalshi(`/markets/${FIXTURES.binary}`)).body.market.status, 'settled');
    });
  });

  describe('admin and faults', () => {
    it('when the price is set, then Kalshi, DFlow and the book move together', async () => {
      await admin(`/markets/${FIXTURES.binary}/price`, { yes: 0.6 });
      const m = (await kalshi(`/markets/${FIXTURES.binary}`)).body.market;
      assert.equal(m.yes_bid_dollars, '0.5900');
      assert.equal(m.yes_ask_dollars, '0.6100');
      assert.equal(
        (await get(`${emu.dflowMetadataUrl}/api/v1/market/${FIXTURES.binary}`)).body.yesAsk,
        '0.6100',
      );
    });

    it('when a daily temperature event is added, then Kalshi lists its buckets with their subtitles, strikes and volume', async () => {
      const added = await admin(
        '/events',
        highTemperatureEvent({
          series: 'KXHIGHNY',
          place: 'NYC',
          station: 'Central Park, New York',
          date: '2026-02-12',
          lowest: 41,
          prices: [0.1, 0.3, 0.4, 0.2],
          volume: 60_000,
        }),
      );
      assert.equal(added.event_ticker, 'KXHIGHNY-26FEB12');
      const { event } = (await kalshi('/events/KXHIGHNY-26FEB12?with_nested_markets=true')).body;
      assert.equal(event.title, 'Highest temperature in NYC on Feb 12, 2026?');
      assert.equal(event.mutually_exclusive, true);
      assert.deepEqual(
        event.markets.map((m: Json) => [
          m.ticker,
          m.yes_sub_title,
          m.strike_type,
          m.floor_strike,
          m.cap_strike,
          m.volume_24h_fp,
        ]),
        [
          ['KXHIGHNY-26FEB12-T41', '40° or below', 'less', undefined, 41, '3000.00'],
          ['KXHIGHNY-26FEB12-B41.5', '41° to 42°', 'between', 41, 42, '3000.00'],
          ['KXHIGHNY-26FEB12-B43.5', '43° to 44°', 'between', 43, 44, '3000.00'],
          ['KXHIGHNY-26FEB12-T44', '45° or above', 'greater', 44, undefined, '3000.00'],
        ],
      );
    });

    it('when faults are armed, then 429s are counted, DFlow answers 503 amm_map_lagging and the RPC reports itself unhealthy', async () => {
      await admin('/faults', { mode: '429', count: 2, path_prefix: '/trade-api' });
      assert.equal((await kalshi('/markets')).status, 429);
      assert.equal((await kalshi('/markets')).status, 429);
      assert.equal((await kalshi('/markets')).status, 200);
      assert.equal((await get(`${emu.adminUrl}/faults`)).body.served['429'], 2);
      await admin('/faults', { mode: '503', count: 1, path_prefix: '/dflow-trade' });
      const lagging = await get(
        orderUrl({ inputMint: USDC_MINT, outputMint: mints(FIXTURES.binary).yesMint, amount: 5_000_000 }),
      );
      assert.equal(lagging.status, 503);
      assert.equal(lagging.body.code, 'amm_map_lagging');
      await admin('/faults', { mode: 'unhealthy', count: 1 });
      assert.equal((await rpc('getBlockHeight', [])).error.code, -32005);
      assert.equal(typeof (await rpc('getBlockHeight', [])).result, 'number');
    });
  });
});
