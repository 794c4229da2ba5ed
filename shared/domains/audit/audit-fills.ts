import type { MarketEventRecord } from '../markets/market-event.model.js';
import type { MarketRecord } from '../markets/market.model.js';
import { bookState } from '../markets/sim-book.js';
import {
  fillDustMicro,
  maxFillDustMicro,
  saleProceedsMicro,
  sharesBoughtMicro,
} from '../markets/fill-rounding.js';
import { price } from '../markets/lmsr.js';
import {
  idRange,
  noDust,
  PRICE_TOLERANCE,
  type AuditModels,
  type Findings,
  type HouseDust,
} from './audit-findings.js';

/**
 * The house's side of the sim fills: every fill of a market's log replayed on its book in `seq`
 * order (the state a fill was decided on is the anchor plus the fills before it), and its integers
 * checked against the LMSR at that state: a sale paid its proceeds rounded down to the micro-unit, a
 * buy got its shares rounded down to the share step, so what rounding left (the dust) is the
 * house's, and no more than one unit. The dust of every checked fill is summed.
 */

/** Float evaluation of the LMSR is off by far less (fill-rounding.ts); a rounding bias is ≥ 1e-3 of a unit. */
const DUST_TOLERANCE_MICRO = 1e-3;

type ReplayedEvent = Pick<
  MarketEventRecord,
  'marketId' | 'seq' | 'kind' | 'side' | 'action' | 'sharesMicro' | 'amountMicro' | 'priceBefore' | 'q0Yes'
>;
type Book = Pick<MarketRecord, 'book'>['book'];
type ReplayedMarket = Pick<MarketRecord, '_id' | 'book'>;

/** One market's book as its log has built it so far; `q0Yes` null until known (see `replayFills`). */
interface Replay {
  book: Book;
  q0Yes: number | null;
  /** Set when the replayed book stopped agreeing with the logged prices: the rest is not checked. */
  lost: boolean;
}

function checkFill(findings: Findings, marketId: string, r: Replay, e: ReplayedEvent, house: HouseDust) {
  const s = bookState({ book: { ...r.book, q0Yes: r.q0Yes! } });
  const differ = (field: string, expected: number | null, actual: number | null) =>
    findings.compare(marketId, {
      kind: 'market',
      id: marketId,
      field: `fills[${e.seq}].${field}`,
      expected,
      actual,
    });
  if (e.priceBefore != null && Math.abs(price(s, 'yes') - e.priceBefore) > PRICE_TOLERANCE) {
    // The book (anchor, liquidity) is not the one the fill was decided on: reported, not replayed further.
    differ('priceBefore', price(s, 'yes'), e.priceBefore);
    r.lost = true;
    return;
  }
  const side = e.side!;
  const fill = { side, action: e.action!, sharesMicro: e.sharesMicro, amountMicro: e.amountMicro };
  const dust = fillDustMicro(s, fill);
  if (dust < -DUST_TOLERANCE_MICRO || dust >= maxFillDustMicro(s, fill) + DUST_TOLERANCE_MICRO) {
    if (e.action === 'sell') differ('amountMicro', saleProceedsMicro(s, side, e.sharesMicro), e.amountMicro);
    else differ('sharesMicro', sharesBoughtMicro(s, side, e.amountMicro), e.sharesMicro);
  }
  house.fills++;
  house.dustMicro += dust;
}

/**
 * Replays the fills of a batch of markets. A market re-anchored (`anchored`) started from an anchor
 * its log does not hold (only the anchors since are logged): its fills are checked from its first
 * anchor event on. One read of the batch's fill and anchor events, in the log's index order.
 */
export async function replayFills(
  models: AuditModels,
  markets: ReplayedMarket[],
  anchored: (marketId: string) => boolean,
  findings: Findings,
): Promise<HouseDust> {
  const house = noDust();
  const replays = new Map<string, Replay>(
    markets.map((m) => [
      m._id,
      {
        book: { ...m.book, yesMicro: 0, noMicro: 0 },
        q0Yes: anchored(m._id) ? null : m.book.q0Yes,
        lost: false,
      },
    ]),
  );
  const events = models.MarketEvent.find(
    { marketId: idRange(markets), kind: { $in: ['fill', 'anchor'] } },
    {
      marketId: 1,
      seq: 1,
      kind: 1,
      side: 1,
      action: 1,
      sharesMicro: 1,
      amountMicro: 1,
      priceBefore: 1,
      q0Yes: 1,
    },
  )
    .sort({ marketId: 1, seq: 1 })
    .lean<ReplayedEvent[]>()
    .cursor({ batchSize: 1000 });
  for await (const e of events) {
    const r = replays.get(e.marketId);
    if (!r || r.lost) continue;
    if (e.kind === 'anchor') {
      r.q0Yes = e.q0Yes ?? r.q0Yes;
      continue;
    }
    if (r.q0Yes !== null) checkFill(findings, e.marketId, r, e, house);
    const moved = e.action === 'sell' ? -e.sharesMicro : e.sharesMicro;
    if (e.side === 'yes') r.book.yesMicro += moved;
    else r.book.noMicro += moved;
  }
  return house;
}
