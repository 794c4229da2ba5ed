import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkRelayableTransaction } from '../../shared/domains/venues/polymarket/onchain/tx-allowlist.js';
import { LINKED, STRANGER, sign, type CallSpec } from './tx-allowlist.helpers.js';

/**
 * Property: a transaction is relayed if and only if a tiny reference predicate, written here over
 * the raw calldata words and independent of the implementation (no ethers Interface, no shared
 * constants: addresses retyped from polymarket.md §8.1, selectors from §8.2), says the allow-list
 * names it. Generated transactions mix random bytes, random selectors, the known selectors with
 * random or near-valid words, known and unknown contracts, values, chain ids, types and signers.
 */

const A = {
  pusd: '0xc011a7e12a19f7b1f670d46f03b03f3342e82dfb',
  usdcE: '0x2791bca1f2de4661ed88a30c99a7a9449aa84174',
  usdc: '0x3c499c542cef5e3811e1192ce70d8cc03d5c3359',
  onramp: '0x93070a847efef7f70739046a929d47a521f5b8ee',
  ctf: '0x4d97dcd97ec945f40cf65f87097ace5ea0476045',
  exchange: '0xe111180000d2663c0091e4f400237545b87b996b',
  negRiskExchange: '0xe2222d279d744050d28e00520010520000310f59',
  // Retyped from issue 26 (the official client's set_approvals), not in §8.1.
  negRiskExchangeB: '0xe2222d002000ba0053cef3375333610f64600036',
  feeEscrow: '0x3a43d88ef8aae4df5a50b3abf67122caaeef7c9f',
  negRiskAdapter: '0xd91e80cf2e7be2e162c6513ced06f1dd0da35296',
  collateralAdapter: '0xada100db00ca00073811820692005400218fce1f',
  negRiskCollateralAdapter: '0xada2005600dec949baf300f4c6120000bdb6eaab',
  exchangeV3: '0xe3333700ca9d93003f00f0f71f8515005f6c00aa',
  router: '0x12121212006e4cd160d18e3f00711da5c3372600',
  autoRedeem: '0xa1200000d0002264c9a1698e001292d00e1b00af',
  exchangeV1: '0x4bfb41d5b3570defd03c39a9a4d8de6bd8b8982e',
};
// pUSD may be approved to the fee escrow, which never holds positions; the CTF operators are the rest.
const CTF_OPERATORS = [
  A.exchange,
  A.negRiskExchange,
  A.negRiskExchangeB,
  A.negRiskAdapter,
  A.collateralAdapter,
  A.negRiskCollateralAdapter,
];
const PUSD_SPENDERS = [...CTF_OPERATORS, A.feeEscrow];
const SEL = {
  approve: '095ea7b3',
  setApprovalForAll: 'a22cb465',
  redeem4: '01b7037c',
  redeem2: 'dbeccb23',
  transfer: 'a9059cbb',
  transferFrom: '23b872dd',
  increaseAllowance: '39509351',
  safeTransferFrom: 'f242432a',
  split: '72ce4275',
  wrap: '62355638',
};

const w = (x: bigint) => x.toString(16).padStart(64, '0');
const addrWord = (a: string) => a.slice(2).toLowerCase().padStart(64, '0');
const ZERO = w(0n);

/** The allow rules, stated over (to, selector, 32-byte words) only. */
function referenceAllowsCall(to: string, data: string): boolean {
  const d = data.toLowerCase().replace(/^0x/, '');
  const sel = d.slice(0, 8);
  const body = d.slice(8);
  if (d.length < 8 || body.length % 64 !== 0) return false;
  const words = body.match(/.{64}/g) ?? [];
  const t = to.toLowerCase();
  const addrIn = (x: string | undefined, set: string[]) => set.some((a) => x === addrWord(a));
  const redeem = (collateral: string) =>
    words.length === 7 &&
    words[0] === addrWord(collateral) &&
    words[1] === ZERO &&
    words[2] !== ZERO &&
    words[3] === w(0x80n) &&
    words[4] === w(2n) &&
    words[5] === w(1n) &&
    words[6] === w(2n);
  if (sel === SEL.approve && t === A.pusd) return words.length === 2 && addrIn(words[0], PUSD_SPENDERS);
  if (sel === SEL.approve && (t === A.usdcE || t === A.usdc))
    return words.length === 2 && addrIn(words[0], [A.onramp]);
  if (sel === SEL.setApprovalForAll && t === A.ctf)
    return (
      words.length === 2 && addrIn(words[0], CTF_OPERATORS) && (words[1] === w(0n) || words[1] === w(1n))
    );
  if (sel === SEL.redeem4 && t === A.ctf) return redeem(A.usdcE);
  if (sel === SEL.redeem4 && (t === A.collateralAdapter || t === A.negRiskCollateralAdapter))
    return redeem(A.pusd);
  if (sel === SEL.redeem2 && t === A.negRiskAdapter)
    return words.length === 5 && words[0] !== ZERO && words[1] === w(0x40n) && words[2] === w(2n);
  return false;
}

interface Gen extends CallSpec {
  to: string | null;
  value: bigint;
  chainId: bigint;
  type: 0 | 2;
  signer: typeof LINKED;
}

const referenceAllows = (g: Gen) =>
  g.signer === LINKED &&
  g.chainId === 137n &&
  g.value === 0n &&
  g.to !== null &&
  referenceAllowsCall(g.to, g.data);

// ---- generators -----------------------------------------------------------------------------------
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');
const randomAddress = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${hex(b)}`);
const anyAddress = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...Object.values(A)) },
  { weight: 1, arbitrary: randomAddress },
);
/** Biased towards the addresses the rules name, so that both sides of each rule are exercised. */
const spenderAddress = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...PUSD_SPENDERS, A.onramp) },
  { weight: 2, arbitrary: fc.constantFrom(...Object.values(A)) },
  { weight: 1, arbitrary: randomAddress },
);
const interestingWord = fc.oneof(
  fc.constantFrom(ZERO, w(1n), w(2n), w(3n), w(0x40n), w(0x80n), 'f'.repeat(64)),
  anyAddress.map(addrWord),
  fc.bigInt({ min: 0n, max: (1n << 256n) - 1n }).map(w),
  fc.uint8Array({ minLength: 32, maxLength: 32 }).map(hex),
);
const selector = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...Object.values(SEL)) },
  { weight: 1, arbitrary: fc.uint8Array({ minLength: 4, maxLength: 4 }).map(hex) },
);
const condition = fc.oneof(
  { weight: 1, arbitrary: fc.constant(ZERO) },
  { weight: 4, arbitrary: fc.uint8Array({ minLength: 32, maxLength: 32 }).map(hex) },
);

/** A call that satisfies (or nearly satisfies) one rule, with a known target. */
const nearValid = fc.oneof(
  fc
    .record({
      to: fc.constantFrom(A.pusd, A.usdcE, A.usdc),
      words: fc.tuple(spenderAddress.map(addrWord), interestingWord),
    })
    .map(({ to, words }) => ({ to, body: SEL.approve + words.join('') })),
  fc
    .record({
      words: fc.tuple(spenderAddress.map(addrWord), fc.constantFrom(w(0n), w(1n), w(2n))),
    })
    .map(({ words }) => ({ to: A.ctf, body: SEL.setApprovalForAll + words.join('') })),
  fc
    .record({
      to: fc.constantFrom(A.ctf, A.collateralAdapter, A.negRiskCollateralAdapter, A.negRiskAdapter),
      collateral: fc.constantFrom(A.pusd, A.usdcE, A.usdc),
      parent: fc.constantFrom(ZERO, ZERO, ZERO, w(1n)),
      cond: condition,
      sets: fc.constantFrom([1n, 2n], [1n, 2n], [1n, 2n], [1n], [2n, 1n], [1n, 2n, 3n]),
    })
    .map(({ to, collateral, parent, cond, sets }) => ({
      to,
      body:
        SEL.redeem4 +
        addrWord(collateral) +
        parent +
        cond +
        w(0x80n) +
        w(BigInt(sets.length)) +
        sets.map(w).join(''),
    })),
  fc
    .record({
      to: fc.constantFrom(A.negRiskAdapter, A.ctf),
      cond: condition,
      amounts: fc.oneof(
        fc.array(fc.bigInt({ min: 0n, max: 10n ** 12n }), { minLength: 2, maxLength: 2 }),
        fc.array(fc.bigInt({ min: 0n, max: 10n ** 12n }), { maxLength: 4 }),
      ),
    })
    .map(({ to, cond, amounts }) => ({
      to,
      body: SEL.redeem2 + cond + w(0x40n) + w(BigInt(amounts.length)) + amounts.map(w).join(''),
    })),
);

/** Calldata: pure noise, a random or known selector over interesting words, or a near-valid call. */
const calldata = fc.oneof(
  {
    weight: 1,
    arbitrary: fc.uint8Array({ maxLength: 300 }).map((b) => ({ to: null as string | null, body: hex(b) })),
  },
  {
    weight: 1,
    arbitrary: fc
      .tuple(selector, fc.array(interestingWord, { maxLength: 8 }))
      .map(([s, words]) => ({ to: null as string | null, body: s + words.join('') })),
  },
  { weight: 4, arbitrary: nearValid },
);

/** Mutations the encoding check must catch: trailing bytes, a cut, an unchanged call (most often). */
const mutation = fc.oneof(
  { weight: 10, arbitrary: fc.constant((b: string) => b) },
  {
    weight: 1,
    arbitrary: fc.uint8Array({ minLength: 1, maxLength: 40 }).map((x) => (b: string) => b + hex(x)),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1, max: 40 })
      .map((n) => (b: string) => b.slice(0, Math.max(0, b.length - 2 * n))),
  },
);

const transaction: fc.Arbitrary<Gen> = fc
  .record({
    call: calldata,
    mutate: mutation,
    to: fc.oneof({ weight: 8, arbitrary: anyAddress }, { weight: 1, arbitrary: fc.constant(null) }),
    keepTo: fc.oneof(
      { weight: 5, arbitrary: fc.constant(true) },
      { weight: 1, arbitrary: fc.constant(false) },
    ),
    value: fc.oneof(
      { weight: 10, arbitrary: fc.constant(0n) },
      { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 1n << 96n }) },
    ),
    chainId: fc.oneof(
      { weight: 10, arbitrary: fc.constant(137n) },
      { weight: 1, arbitrary: fc.constantFrom(1n, 80002n, 136n, 138n) },
      { weight: 1, arbitrary: fc.bigInt({ min: 1n, max: 1n << 32n }) },
    ),
    type: fc.constantFrom(0 as const, 2 as const),
    signer: fc.oneof(
      { weight: 10, arbitrary: fc.constant(LINKED) },
      { weight: 1, arbitrary: fc.constant(STRANGER) },
    ),
    nonce: fc.nat({ max: 1_000_000 }),
  })
  .map((r) => ({
    // A near-valid call keeps its target most of the time; otherwise the generated `to` is used.
    to: r.call.to !== null && r.keepTo ? r.call.to : r.to,
    data: `0x${r.mutate(r.call.body)}`,
    value: r.value,
    chainId: r.chainId,
    type: r.type,
    signer: r.signer,
    nonce: r.nonce,
  }));

describe('Relay allow-list, property #unit', () => {
  it('when random transactions are signed, then exactly those the reference predicate names are relayed (2,500 cases)', async function () {
    this.timeout(300_000);
    const seen = { runs: 0, allowed: 0, refused: 0 };
    await fc.assert(
      fc.asyncProperty(transaction, async (g) => {
        const r = checkRelayableTransaction(await sign(g), { sender: LINKED.address });
        seen.runs += 1;
        if (r.ok) seen.allowed += 1;
        else seen.refused += 1;
        assert.equal(
          r.ok,
          referenceAllows(g),
          r.ok ? `relayed as ${r.kind}` : `refused ${r.code}: ${r.error}`,
        );
      }),
      { numRuns: 2_500 },
    );
    console.log(`      property: ${seen.runs} cases, ${seen.allowed} allowed, ${seen.refused} refused`);
    // The generator must reach the allowed region too, or the "iff" says little.
    assert.ok(seen.allowed >= seen.runs / 40, `only ${seen.allowed} allowed`);
  });

  it('when an allowed signed transaction has one byte changed, then it is never relayed (1,000 cases)', async function () {
    this.timeout(300_000);
    const raws = await Promise.all(
      [
        { to: A.pusd, data: `0x${SEL.approve}${addrWord(A.exchange)}${'f'.repeat(64)}`, type: 2 as const },
        {
          to: A.ctf,
          data: `0x${SEL.setApprovalForAll}${addrWord(A.negRiskExchange)}${w(1n)}`,
          type: 0 as const,
        },
      ].map((c) => sign(c)),
    );
    for (const raw of raws) assert.ok(checkRelayableTransaction(raw, { sender: LINKED.address }).ok);
    await fc.assert(
      fc.property(fc.constantFrom(...raws), fc.nat(), fc.integer({ min: 1, max: 255 }), (raw, at, xor) => {
        const bytes = Buffer.from(raw.slice(2), 'hex');
        const i = at % bytes.length;
        bytes[i] = bytes[i]! ^ xor;
        const r = checkRelayableTransaction(`0x${bytes.toString('hex')}`, { sender: LINKED.address });
        assert.equal(r.ok, false, `byte ${i} ^ ${xor} relayed`);
      }),
      { numRuns: 1_000 },
    );
  });

  it('when random bytes are sent as a transaction, then nothing is relayed (1,000 cases)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), (b) => {
        assert.equal(checkRelayableTransaction(`0x${hex(b)}`, { sender: LINKED.address }).ok, false);
      }),
      { numRuns: 1_000 },
    );
  });
});
