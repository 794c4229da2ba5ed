import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import { l2Signature } from '../../shared/domains/venues/polymarket/orders/clob-trading.js';
import {
  limitOrderAmounts,
  marketBuyAmounts,
} from '../../shared/domains/venues/polymarket/orders/order-amounts.js';
import {
  orderHash,
  recoverOrderSigner,
  signOrder,
  ZERO_BYTES32,
  type V2Order,
} from '../../shared/domains/venues/polymarket/orders/order-eip712.js';
import {
  checkSignedOrder,
  type SignedOrderInput,
} from '../../shared/domains/venues/polymarket/orders/signed-order.js';

// polymarket.md §4.2 and §6.5: Hardhat key #0 (public; never fund it).
const KEY0 = new Wallet('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80');
const TOKEN = '71321045679252212594626385532706912750332728571942532289631379312455583992563';
const VECTOR: V2Order = {
  salt: '12345',
  maker: KEY0.address,
  signer: KEY0.address,
  tokenId: TOKEN,
  makerAmount: '5700000',
  takerAmount: '10000000',
  side: 'BUY',
  signatureType: 0,
  timestamp: '1700000000000',
  expiration: '0',
  metadata: ZERO_BYTES32,
  builder: ZERO_BYTES32,
};
const VECTOR_SIGNATURE =
  '0xea3ac3b23b18ff0019b33d54505241f3cbd381880cc665ee21f0f8b7e59488d620d98b3d66f754cfbdec47031d6135db45265ec652b1ab0bf2b2fff87b3f24fd1c';

describe('Polymarket orders, service side #unit', () => {
  it('when the reference order is hashed and signed, then hash and signature are the published vectors', async () => {
    assert.equal(
      orderHash(VECTOR, false),
      '0xf7acc97b88ca21968549290e0c388cda55736248d513bf10bd7b1469a62356fb',
    );
    assert.equal(
      orderHash(VECTOR, true),
      '0xe4b8ce5611efa4e9dcfb6f3d29e546092e56aaf2575f44292518a1f6181b11c8',
    );
    const signed = await signOrder(KEY0, VECTOR, false);
    assert.equal(signed.signature, VECTOR_SIGNATURE);
  });

  it('when the published signature is verified, then it recovers key #0, and not under the neg-risk domain', () => {
    assert.equal(recoverOrderSigner({ ...VECTOR, signature: VECTOR_SIGNATURE }, false), KEY0.address);
    assert.notEqual(recoverOrderSigner({ ...VECTOR, signature: VECTOR_SIGNATURE }, true), KEY0.address);
  });

  it('when L2 requests are signed, then the HMACs are the published vectors', () => {
    const secret = 'c2VjcmV0LWtleS1mb3ItdGVzdGluZy1vbmx5LTAwMDA=';
    assert.equal(
      l2Signature(secret, '1700000000', 'POST', '/order', '{"hello":"world"}'),
      '2S0mjPAQZGkU1eLmk7nl3-lkoSc3LlnP61lNP3M79ys=',
    );
    assert.equal(
      l2Signature(secret, '1700000000', 'GET', '/balance-allowance'),
      'tHW7PyaNr_1GAc6ZoXwDk3wslZQrcdq5hX-5bsq75fE=',
    );
  });

  it('when amounts are computed from price and size, then they are the worked examples of the reference', () => {
    assert.deepEqual(limitOrderAmounts('BUY', 10, 0.57, 0.01), {
      makerAmount: '5700000',
      takerAmount: '10000000',
      price: 0.57,
    });
    assert.deepEqual(limitOrderAmounts('SELL', 10, 0.57, 0.01), {
      makerAmount: '10000000',
      takerAmount: '5700000',
      price: 0.57,
    });
    assert.equal(limitOrderAmounts('BUY', 12.345, 0.123, 0.001).makerAmount, '1517820');
    assert.equal(limitOrderAmounts('BUY', 12.345, 0.123, 0.001).takerAmount, '12340000');
    assert.equal(limitOrderAmounts('BUY', 7, 0.3333, 0.0001).makerAmount, '2333100');
    assert.deepEqual(marketBuyAmounts(5, 0.57, 0.01), {
      makerAmount: '5000000',
      takerAmount: '8771900',
      price: 0.57,
    });
  });

  it('when a signed order is checked against the trade, then only the trade asked for, signed by the linked wallet, passes', async () => {
    // As the client sends it (JSON): parsed by the trade request's schema into this shape.
    const signed = { ...(await signOrder(KEY0, VECTOR, false)) } as SignedOrderInput;
    const want = {
      tokenId: TOKEN,
      side: 'BUY' as const,
      amountMicro: 5_700_000,
      sharesMicro: 0,
      limitPrice: 0.6,
      negRisk: false,
      wallet: { address: KEY0.address, depositWallet: null },
    };
    const ok = checkSignedOrder(signed, want);
    assert.ok(ok.ok);
    assert.equal(ok.value.orderId, orderHash(VECTOR, false));
    const codeOf = (d: ReturnType<typeof checkSignedOrder>) => (d.ok ? 'ok' : d.refusal.errorCode);
    assert.equal(codeOf(checkSignedOrder(signed, { ...want, limitPrice: 0.5 })), 'signed_order_mismatch');
    assert.equal(codeOf(checkSignedOrder(signed, { ...want, limitPrice: 0.5699 })), 'signed_order_mismatch');
    // $10 at 0.6 with the shares floored at 4 decimals (16.6666, as the official client's type-3
    // buys round them): a hair over 0.6 by the ratio, at the limit by the CLOB's precision.
    const floored = {
      ...(await signOrder(KEY0, { ...VECTOR, makerAmount: '10000000', takerAmount: '16666600' }, false)),
    };
    assert.equal(
      codeOf(checkSignedOrder(floored as SignedOrderInput, { ...want, amountMicro: 10_000_000 })),
      'ok',
    );
    const over = {
      ...(await signOrder(KEY0, { ...VECTOR, makerAmount: '10000000', takerAmount: '16666400' }, false)),
    };
    assert.equal(
      codeOf(checkSignedOrder(over as SignedOrderInput, { ...want, amountMicro: 10_000_000 })),
      'signed_order_mismatch',
    );
    assert.equal(
      codeOf(checkSignedOrder(signed, { ...want, amountMicro: 9_000_000 })),
      'signed_order_mismatch',
    );
    assert.equal(codeOf(checkSignedOrder(signed, { ...want, side: 'SELL' })), 'signed_order_mismatch');
    assert.equal(codeOf(checkSignedOrder({ ...signed, takerAmount: '10000001' }, want)), 'invalid_signature');
    assert.equal(codeOf(checkSignedOrder(signed, { ...want, negRisk: true })), 'invalid_signature');
    const other = Wallet.createRandom();
    assert.equal(
      codeOf(checkSignedOrder(signed, { ...want, wallet: { address: other.address, depositWallet: null } })),
      'wallet_mismatch',
    );
    assert.equal(
      codeOf(
        checkSignedOrder(
          { ...signed, timestamp: undefined, nonce: '0', taker: ZERO_BYTES32.slice(0, 42) },
          want,
        ),
      ),
      'order_version_mismatch',
    );
    // The client may send the signature without 0x.
    assert.ok(checkSignedOrder({ ...signed, signature: signed.signature.slice(2) }, want).ok);
  });
});
