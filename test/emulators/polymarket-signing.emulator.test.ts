import assert from 'node:assert/strict';
import { keccak256, recoverAddress, toUtf8Bytes, TypedDataEncoder, Wallet } from 'ethers';
import { ApiKeyStore, AuthError, l2Signature, verifyL1 } from './polymarket/clob-auth.js';
import { CONTRACTS } from './polymarket/contracts.js';
import { plan } from './polymarket/matching.js';
import type { MarketRecord } from './polymarket/model.js';
import { ERR, OrderRejection, verifyOrder, type VerifyContext } from './polymarket/order-verify.js';
import {
  CLOB_AUTH_DOMAIN,
  CLOB_AUTH_MESSAGE,
  CLOB_AUTH_TYPES,
  clobAuthDigest,
  depositWalletDigest,
  domainSeparator,
  exchangeDomain,
  orderHash,
  orderStructHash,
  ORDER_TYPE_STRING_V2,
  ORDER_TYPES_V2,
  type OrderStruct,
} from './polymarket/typed-data.js';
import { proxyWalletOf, safeWalletOf } from './polymarket/wallet-derivation.js';

// The emulator's verifiers against the reference's test vectors (shared/reference/polymarket.md
// §4.1/§4.2 auth, §6.5 order signing, §9.2 wallet derivations), in both directions: what we
// compute equals the published value, and the published signature passes our checks. Public
// Hardhat key #0 — never fund it.

const HARDHAT_KEY_0 = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';
const EOA = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266';
const wallet = new Wallet(HARDHAT_KEY_0);
const ZERO32 = `0x${'00'.repeat(32)}`;
const TOKEN = '71321045679252212594626385532706912750332728571942532289631379312455583992563';

const VECTOR_ORDER: OrderStruct = {
  salt: 12345n,
  maker: EOA,
  signer: EOA,
  tokenId: BigInt(TOKEN),
  makerAmount: 5_700_000n,
  takerAmount: 10_000_000n,
  side: 0,
  signatureType: 0,
  timestamp: 1_700_000_000_000n,
  metadata: ZERO32,
  builder: ZERO32,
};
const VECTOR_SIGNATURE =
  '0xea3ac3b23b18ff0019b33d54505241f3cbd381880cc665ee21f0f8b7e59488d620d98b3d66f754cfbdec47031d6135db45265ec652b1ab0bf2b2fff87b3f24fd1c';

/** Just enough of a market for order verification: tick 0.01, min size 5. */
function fakeMarket(negRisk: boolean): MarketRecord {
  return {
    conditionId: `0x${'ab'.repeat(32)}`,
    tokenIds: [TOKEN, '1'],
    outcomes: ['Yes', 'No'],
    tick: 0.01,
    minSize: 5,
    negRisk,
    closed: false,
    acceptingOrders: true,
    enableOrderBook: true,
  } as MarketRecord;
}

function context(negRisk = false, overrides: Partial<VerifyContext> = {}): VerifyContext {
  return {
    key: { apiKey: 'key-1', secret: 's', passphrase: 'p', address: EOA.toLowerCase(), nonce: '0' },
    nowMs: 1_700_000_000_000,
    marketByToken: (t) => (t === TOKEN ? { market: fakeMarket(negRisk), index: 0 } : undefined),
    depositWalletOnly: false,
    depositWalletOwner: () => undefined,
    ...overrides,
  };
}

/** The JSON body the official clients send for an order (salt as a number, side as text). */
function body(o: OrderStruct, signature: string, extra: Record<string, unknown> = {}) {
  return {
    order: {
      salt: Number(o.salt),
      maker: o.maker,
      signer: o.signer,
      tokenId: o.tokenId.toString(),
      makerAmount: o.makerAmount.toString(),
      takerAmount: o.takerAmount.toString(),
      side: o.side === 0 ? 'BUY' : 'SELL',
      signatureType: o.signatureType,
      timestamp: o.timestamp.toString(),
      expiration: '0',
      metadata: o.metadata,
      builder: o.builder,
      signature,
    },
    owner: 'key-1',
    orderType: 'GTC',
    postOnly: false,
    deferExec: false,
    ...extra,
  };
}

function rejects(fn: () => unknown, message: string) {
  assert.throws(fn, (err: unknown) => err instanceof OrderRejection && err.message.startsWith(message));
}

describe('Polymarket emulator: signing vectors', () => {
  describe('L1 (ClobAuth EIP-712, §4.1/§4.2)', () => {
    it('when the ClobAuth type is hashed, then the typehash is the reference value', () => {
      const encoded = TypedDataEncoder.from(CLOB_AUTH_TYPES).encodeType('ClobAuth');
      assert.equal(
        keccak256(toUtf8Bytes(encoded)),
        '0x52578c5c725a28a84fedc8c22aa47947822942f35b4dc350db028e45320e035c',
      );
    });

    it('when key #0 signs ClobAuth at 1700000000 / nonce 0, then digest and signature are the vector', async () => {
      assert.equal(
        clobAuthDigest(EOA, '1700000000', 0n),
        '0xc85352894b3c41f3ea6152479d64b9233fbaf2de87eabc7e4bba3a161fd28493',
      );
      const sig = await wallet.signTypedData(CLOB_AUTH_DOMAIN, CLOB_AUTH_TYPES, {
        address: EOA,
        timestamp: '1700000000',
        nonce: 0,
        message: CLOB_AUTH_MESSAGE,
      });
      assert.equal(
        sig,
        '0x659ed4b28ae28e0f038fdf0023c00863c9559caacb9ebc83f44eea87059a099a36f1e1dee110e7faa1c4f65d17489b2da1333ebef78bbe2116d81207b975052d1c',
      );
    });

    it('when the vector headers arrive, then L1 accepts them; a wrong address, stale clock or other nonce is refused', () => {
      const headers: Record<string, string> = {
        POLY_ADDRESS: EOA,
        POLY_SIGNATURE:
          '0x659ed4b28ae28e0f038fdf0023c00863c9559caacb9ebc83f44eea87059a099a36f1e1dee110e7faa1c4f65d17489b2da1333ebef78bbe2116d81207b975052d1c',
        POLY_TIMESTAMP: '1700000000',
        POLY_NONCE: '0',
      };
      const get = (h: Record<string, string>) => (name: string) => h[name];
      assert.deepEqual(verifyL1(get(headers), [1_700_000_010], 30), {
        address: EOA.toLowerCase(),
        nonce: '0',
      });
      assert.throws(() => verifyL1(get(headers), [1_700_000_031], 30), AuthError);
      assert.throws(() => verifyL1(get({ ...headers, POLY_NONCE: '1' }), [1_700_000_000], 30), AuthError);
      assert.throws(
        () => verifyL1(get({ ...headers, POLY_ADDRESS: Wallet.createRandom().address }), [1_700_000_000], 30),
        AuthError,
      );
    });
  });

  describe('L2 (HMAC, §4.2)', () => {
    const secret = 'c2VjcmV0LWtleS1mb3ItdGVzdGluZy1vbmx5LTAwMDA=';

    it('when the reference messages are signed, then the signatures are the vectors (base64url, padded)', () => {
      assert.equal(
        l2Signature(secret, '1700000000', 'POST', '/order', '{"hello":"world"}'),
        '2S0mjPAQZGkU1eLmk7nl3-lkoSc3LlnP61lNP3M79ys=',
      );
      assert.equal(
        l2Signature(secret, 1700000000, 'GET', '/balance-allowance'),
        'tHW7PyaNr_1GAc6ZoXwDk3wslZQrcdq5hX-5bsq75fE=',
      );
      // The url-safe spelling of a secret decodes to the same key.
      const urlSafe = secret.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      assert.equal(
        l2Signature(urlSafe, '1700000000', 'GET', '/balance-allowance'),
        'tHW7PyaNr_1GAc6ZoXwDk3wslZQrcdq5hX-5bsq75fE=',
      );
    });

    it('when a request is signed with a key, then L2 accepts exactly that request and nothing else', () => {
      const store = new ApiKeyStore();
      const key = store.create(EOA.toLowerCase(), '0');
      assert.ok(key);
      assert.equal(store.create(EOA.toLowerCase(), '0'), undefined, 'a second create is refused');
      assert.deepEqual(store.derive(EOA.toLowerCase(), '0'), key);
      const rawBody = '{"orderID":"0xabc"}';
      const headers: Record<string, string> = {
        POLY_ADDRESS: EOA,
        POLY_API_KEY: key.apiKey,
        POLY_PASSPHRASE: key.passphrase,
        POLY_TIMESTAMP: '1700000000',
        POLY_SIGNATURE: l2Signature(key.secret, '1700000000', 'DELETE', '/order', rawBody),
      };
      const check = (h: Record<string, string>, req = { method: 'DELETE', path: '/order', rawBody }) =>
        store.verifyL2((n) => h[n], req, [1_700_000_000], 30);
      assert.equal(check(headers).apiKey, key.apiKey);
      assert.throws(() =>
        check(headers, { method: 'DELETE', path: '/order', rawBody: '{"orderID":"0xabd"}' }),
      );
      assert.throws(() => check(headers, { method: 'DELETE', path: '/orders', rawBody }));
      assert.throws(() => check({ ...headers, POLY_PASSPHRASE: 'x' }));
      assert.throws(() => check({ ...headers, POLY_ADDRESS: Wallet.createRandom().address }));
      store.delete(key.apiKey);
      assert.throws(() => check(headers));
      const again = store.create(EOA.toLowerCase(), '0');
      assert.ok(again && again.apiKey !== key.apiKey, 'a re-created key is a new one');
    });
  });

  describe('V2 orders (§6.2, §6.5)', () => {
    it('when the V2 Order type is hashed, then the typehash is the reference value', () => {
      assert.equal(
        keccak256(toUtf8Bytes(ORDER_TYPE_STRING_V2)),
        '0xbb86318a2138f5fa8ae32fbe8e659f8fcf13cc6ae4014a707893055433818589',
      );
    });

    it('when the vector order is hashed under the V2, neg-risk V2 and V3 domains, then separators and hashes match', () => {
      assert.equal(
        domainSeparator(exchangeDomain(false)),
        '0x3264e159346253e26a64e00b69032db0e7d32f94628de3e6eecb50304d7af3d2',
      );
      assert.equal(
        orderHash(VECTOR_ORDER, false),
        '0xf7acc97b88ca21968549290e0c388cda55736248d513bf10bd7b1469a62356fb',
      );
      assert.equal(
        domainSeparator(exchangeDomain(true)),
        '0x9b858f53327b0bd13af8ec14cfb35234fb9eb7b0504d1a4e61f433840d30e81a',
      );
      assert.equal(
        orderHash(VECTOR_ORDER, true),
        '0xe4b8ce5611efa4e9dcfb6f3d29e546092e56aaf2575f44292518a1f6181b11c8',
      );
      assert.equal(
        domainSeparator(exchangeDomain(false, '3')),
        '0x466c63910185bbd55e8679264200c4e0abdcbb0c6264eb3d41d13326022e095b',
      );
    });

    it('when key #0 signs the vector order, then the signature is the vector and recovers the EOA', async () => {
      const sig = await wallet.signTypedData(exchangeDomain(false), ORDER_TYPES_V2, VECTOR_ORDER);
      assert.equal(sig, VECTOR_SIGNATURE);
      assert.equal(recoverAddress(orderHash(VECTOR_ORDER, false), VECTOR_SIGNATURE), EOA);
    });

    it('when the V1 equivalent is hashed under the V1 domain, then the hash is the reference value', () => {
      const types = {
        Order: [
          { name: 'salt', type: 'uint256' },
          { name: 'maker', type: 'address' },
          { name: 'signer', type: 'address' },
          { name: 'taker', type: 'address' },
          { name: 'tokenId', type: 'uint256' },
          { name: 'makerAmount', type: 'uint256' },
          { name: 'takerAmount', type: 'uint256' },
          { name: 'expiration', type: 'uint256' },
          { name: 'nonce', type: 'uint256' },
          { name: 'feeRateBps', type: 'uint256' },
          { name: 'side', type: 'uint8' },
          { name: 'signatureType', type: 'uint8' },
        ],
      };
      const v1 = {
        salt: 12345n,
        maker: EOA,
        signer: EOA,
        taker: `0x${'00'.repeat(20)}`,
        tokenId: BigInt(TOKEN),
        makerAmount: 5_700_000n,
        takerAmount: 10_000_000n,
        expiration: 0n,
        nonce: 0n,
        feeRateBps: 0n,
        side: 0,
        signatureType: 0,
      };
      assert.equal(
        keccak256(toUtf8Bytes(TypedDataEncoder.from(types).encodeType('Order'))),
        '0xa852566c4e14d00869b6db0220888a9090a13eccdaea03713ff0a3d27bf9767c',
      );
      assert.equal(
        TypedDataEncoder.hash(exchangeDomain(false, '1'), types, v1),
        '0xa593e61cd5abffcffc5871e96163cb71c956b98127a0b3a09a2e7cd5c998845b',
      );
    });

    it('when the vector order is posted as JSON, then the verifier accepts it with the vector hash as id', () => {
      const v = verifyOrder(body(VECTOR_ORDER, VECTOR_SIGNATURE), context());
      assert.equal(v.id, '0xf7acc97b88ca21968549290e0c388cda55736248d513bf10bd7b1469a62356fb');
      assert.deepEqual([v.side, v.shares, v.exchange], ['BUY', 10_000_000n, CONTRACTS.exchangeV2]);
    });

    it('when the same signature meets a neg-risk market, then it is invalid (signed for the other exchange)', () => {
      rejects(() => verifyOrder(body(VECTOR_ORDER, VECTOR_SIGNATURE), context(true)), ERR.signature);
    });

    it('when the order is V1-shaped, then it is refused with order_version_mismatch', () => {
      const b = body(VECTOR_ORDER, VECTOR_SIGNATURE);
      const { timestamp: _t, metadata: _m, builder: _b, ...rest } = b.order;
      const v1 = { ...b, order: { ...rest, taker: `0x${'00'.repeat(20)}`, nonce: '0', feeRateBps: '0' } };
      assert.throws(
        () => verifyOrder(v1, context()),
        (err: unknown) => err instanceof OrderRejection && err.message.includes('order_version_mismatch'),
      );
    });

    it('when the signer is not the API key owner, a field is changed or the owner differs, then the order is refused', async () => {
      const other = Wallet.createRandom();
      const theirs = { ...VECTOR_ORDER, maker: other.address, signer: other.address };
      const sig = await other.signTypedData(exchangeDomain(false), ORDER_TYPES_V2, theirs);
      rejects(() => verifyOrder(body(theirs, sig), context()), ERR.signerNotKey);
      rejects(
        () => verifyOrder(body({ ...VECTOR_ORDER, takerAmount: 10_000_001n }, VECTOR_SIGNATURE), context()),
        ERR.signature,
      );
      rejects(
        () => verifyOrder(body(VECTOR_ORDER, VECTOR_SIGNATURE, { owner: 'key-2' }), context()),
        ERR.owner,
      );
      rejects(
        () => verifyOrder(body(VECTOR_ORDER, VECTOR_SIGNATURE), context(false, { depositWalletOnly: true })),
        ERR.depositWalletOnly,
      );
    });

    it('when price or size break the market rules, then the CLOB texts come back', async () => {
      const sign = async (o: OrderStruct, extra: Record<string, unknown> = {}) =>
        body(o, await wallet.signTypedData(exchangeDomain(false), ORDER_TYPES_V2, o), extra);
      // 0.575 is off the 0.01 grid.
      const offGrid = await sign({ ...VECTOR_ORDER, makerAmount: 5_750_000n });
      rejects(() => verifyOrder(offGrid, context()), ERR.tick);
      // 4 shares < min size 5.
      const small = await sign({ ...VECTOR_ORDER, makerAmount: 2_280_000n, takerAmount: 4_000_000n });
      rejects(() => verifyOrder(small, context()), ERR.minSize);
      // A market buy may have an off-grid implied price, but amounts need 2 / 4 decimals.
      const market = await sign(
        { ...VECTOR_ORDER, makerAmount: 5_000_000n, takerAmount: 8_771_900n },
        { orderType: 'FOK' },
      );
      assert.equal(verifyOrder(market, context()).amountBound, true);
      const precise = await sign(
        { ...VECTOR_ORDER, makerAmount: 5_000_001n, takerAmount: 8_771_900n },
        { orderType: 'FOK' },
      );
      rejects(() => verifyOrder(precise, context()), ERR.precisionBuy);
      const gtd = await sign(VECTOR_ORDER, { orderType: 'GTD' });
      rejects(() => verifyOrder(gtd, context()), ERR.expiration);
      rejects(
        () => verifyOrder({ ...offGrid, orderType: 'FOK', postOnly: true }, context()),
        ERR.postOnlyType,
      );
    });
  });

  describe('wallet models (§6.3, §9.2)', () => {
    it('when key #0 is derived, then its proxy and Safe wallets are the reference addresses', () => {
      assert.equal(proxyWalletOf(EOA), '0x365f0CA36Ae1f641E02fE3B7743673da42A13A70');
      assert.equal(safeWalletOf(EOA), '0xd93B25cb943D14d0d34FBaF01Fc93a0f8b5F6E47');
    });

    it('when a proxy (type 1) or Safe (type 2) order names the derived maker, then it passes; another maker does not', async () => {
      for (const [signatureType, maker] of [
        [1, proxyWalletOf(EOA)],
        [2, safeWalletOf(EOA)],
      ] as const) {
        const o = { ...VECTOR_ORDER, maker, signatureType };
        const ok = body(o, await wallet.signTypedData(exchangeDomain(false), ORDER_TYPES_V2, o));
        assert.equal(verifyOrder(ok, context()).maker, maker);
        const wrong = { ...o, maker: Wallet.createRandom().address };
        const bad = body(wrong, await wallet.signTypedData(exchangeDomain(false), ORDER_TYPES_V2, wrong));
        rejects(() => verifyOrder(bad, context()), ERR.signature);
      }
    });

    it('when a deposit wallet (type 3) order carries the ERC-7739 envelope of the key owner, then it passes', async () => {
      const depositWallet = Wallet.createRandom().address;
      const o: OrderStruct = {
        ...VECTOR_ORDER,
        maker: depositWallet,
        signer: depositWallet,
        signatureType: 3,
      };
      const inner = await wallet.signTypedData(
        exchangeDomain(false),
        {
          TypedDataSign: [
            { name: 'contents', type: 'Order' },
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
            { name: 'salt', type: 'bytes32' },
          ],
          Order: ORDER_TYPES_V2.Order as { name: string; type: string }[],
        },
        {
          contents: o,
          name: 'DepositWallet',
          version: '1',
          chainId: 137,
          verifyingContract: depositWallet,
          salt: ZERO32,
        },
      );
      assert.equal(recoverAddress(depositWalletDigest(o, false), inner), EOA);
      const typeString = Buffer.from(ORDER_TYPE_STRING_V2, 'utf8');
      const envelope = (contents: string) =>
        `${inner}${domainSeparator(exchangeDomain(false)).slice(2)}${contents.slice(2)}${typeString.toString('hex')}${typeString.length.toString(16).padStart(4, '0')}`;
      const deployed = {
        depositWalletOwner: (a: string) =>
          a.toLowerCase() === depositWallet.toLowerCase() ? EOA : undefined,
      };
      assert.equal(
        verifyOrder(body(o, envelope(orderStructHash(o))), context(false, deployed)).maker,
        depositWallet,
      );
      rejects(() => verifyOrder(body(o, envelope(ZERO32)), context(false, deployed)), ERR.signature);
      // Not deployed: no code at the maker, so its ERC-1271 check cannot pass.
      rejects(() => verifyOrder(body(o, envelope(orderStructHash(o))), context()), ERR.signature);
      const stranger = Wallet.createRandom();
      rejects(
        () =>
          verifyOrder(
            body(o, envelope(orderStructHash(o))),
            context(false, {
              ...deployed,
              key: {
                apiKey: 'key-1',
                secret: 's',
                passphrase: 'p',
                address: stranger.address.toLowerCase(),
                nonce: '0',
              },
            }),
          ),
        // The wallet's owner signed, but the order came in under someone else's API key.
        ERR.signerNotKey,
      );
    });
  });

  describe('matching arithmetic', () => {
    const level = (price: number, shares: number) => ({
      priceMicro: BigInt(Math.round(price * 1e6)),
      shares: BigInt(Math.round(shares * 1e6)),
      order: undefined,
    });

    it('when a market buy spends $5 against 0.55 and 0.56 asks, then it stops when the budget is spent and never gets free shares', () => {
      const p = plan(
        { side: 'BUY', limitNum: 5_700_000n, limitDen: 10_000_000n, shares: 0n, budget: 5_000_000n },
        [level(0.56, 100), level(0.55, 2)],
      );
      assert.equal(p.complete, true);
      assert.ok(p.cost <= 5_000_000n && p.cost > 4_999_000n, String(p.cost));
      assert.ok(p.fills.every((f) => f.cost > 0n));
      assert.deepEqual(
        p.fills.map((f) => f.priceMicro),
        [550_000n, 560_000n],
      );
    });

    it('when a limit sell meets bids above and below its price, then it fills only where the price is acceptable', () => {
      const p = plan(
        { side: 'SELL', limitNum: 5_000_000n, limitDen: 10_000_000n, shares: 10_000_000n, budget: undefined },
        [level(0.49, 100), level(0.51, 4), level(0.5, 3)],
      );
      assert.deepEqual(
        p.fills.map((f) => [f.priceMicro, f.shares]),
        [
          [510_000n, 4_000_000n],
          [500_000n, 3_000_000n],
        ],
      );
      assert.equal(p.complete, false);
    });
  });
});
