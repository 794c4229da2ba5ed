import assert from 'node:assert/strict';
import {
  depthPercentiles,
  dropAgainst,
  favoritism,
  findDrops,
  type PricePoint,
} from '../../shared/domains/shock-ladder/drops.js';
import { estimateDepths } from '../../shared/domains/shock-ladder/drop-history.js';

const rule = { dropCents: 5, windowMs: 300_000 };
const at = (sec: number, yes: number): PricePoint => ({ atMs: sec * 1000, yes });
const DEFAULTS = { p50: 6, p75: 9, p90: 13, p95: 18 };

describe('Shock drops #unit', () => {
  it('when YES falls at least the threshold below the window high, then it is a YES drop from that high', () => {
    assert.deepEqual(dropAgainst(0.82, 0.78, at(10, 0.76), rule), {
      side: 'yes',
      prePrice: 0.82,
      price: 0.76,
      atMs: 10_000,
    });
    // 4.99 cents is not a shock, 5 is (float noise does not decide).
    assert.equal(dropAgainst(0.8, 0.8, at(10, 0.7501), rule), null);
    assert.equal(dropAgainst(0.8, 0.8, at(10, 0.75), rule)?.side, 'yes');
  });

  it('when YES jumps, then it is the NO outcome that dropped, priced as NO', () => {
    const drop = dropAgainst(0.25, 0.2, at(10, 0.3), rule)!;
    assert.equal(drop.side, 'no');
    assert.ok(Math.abs(drop.prePrice - 0.8) < 1e-9);
    assert.ok(Math.abs(drop.price - 0.7) < 1e-9);
  });

  it('when a series holds drops, then each is found once with its depth to the lowest within a window after', () => {
    const series = [
      at(0, 0.8),
      at(30, 0.79),
      at(60, 0.74), // drop: 6¢ below 0.80
      at(90, 0.7), // still falling: same shock, depth 10¢
      at(120, 0.71), // staying low: no second shock
      at(1000, 0.8), // back up long after: the window before it is empty
      at(1030, 0.72), // a second drop, 8¢
    ];
    const drops = findDrops(series, rule);
    assert.deepEqual(
      drops.map((d) => [d.side, d.atMs / 1000, d.prePrice, d.depthCents]),
      [
        ['yes', 60, 0.8, 10],
        ['yes', 1030, 0.8, 8],
      ],
    );
  });

  it('when a drop is slower than the window, then it is no shock', () => {
    const series = [at(0, 0.8), at(200, 0.78), at(400, 0.76), at(600, 0.74)];
    assert.deepEqual(findDrops(series, rule), []);
  });

  it('favoritism bands follow the skill: moderate is 0.75 to 0.85', () => {
    assert.deepEqual([0.9, 0.85, 0.8, 0.75, 0.7, 0.5, 0.3].map(favoritism), [
      'heavy',
      'heavy',
      'moderate',
      'moderate',
      'slight',
      'balanced',
      'underdog',
    ]);
  });

  it('depth percentiles interpolate; too few past drops fall back to every band, then to the defaults', () => {
    assert.deepEqual(depthPercentiles([6, 8, 10, 12, 14]), { p50: 10, p75: 12, p90: 13.2, p95: 13.6 });
    const past = (pre: number, depth: number) => ({
      side: 'yes' as const,
      prePrice: pre,
      price: pre - 0.05,
      atMs: 0,
      depthCents: depth,
    });
    const moderate = [6, 8, 10, 12, 14].map((d) => past(0.8, d));
    const heavy = [20, 20, 20].map((d) => past(0.9, d));
    assert.deepEqual(estimateDepths([...moderate, ...heavy], 0.8, 5, DEFAULTS), {
      depths: { p50: 10, p75: 12, p90: 13.2, p95: 13.6 },
      source: 'tapes',
      count: 5,
    });
    const pooled = estimateDepths([...moderate, ...heavy], 0.9, 5, DEFAULTS);
    assert.equal(pooled.source, 'tapes_all_bands');
    assert.equal(pooled.count, 8);
    assert.deepEqual(estimateDepths(heavy, 0.8, 5, DEFAULTS), {
      depths: DEFAULTS,
      source: 'default',
      count: 0,
    });
  });
});
