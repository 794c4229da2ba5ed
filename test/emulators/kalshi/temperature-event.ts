// A daily temperature event as Kalshi lists one (shared/reference/kalshi.md §1.3, §1.6): series
// `KXHIGHNY`, event `KXHIGHNY-26DEC07` (series + YYMMMDD), one binary market per bucket sharing the
// event's title and told apart by `yes_sub_title`: a `less` threshold at the bottom (`T41`,
// "40° or below"), `between` brackets of two degrees (`B41.5`, "41° to 42°") and a `greater`
// threshold at the top (`T46`, "47° or above"), with their strike fields. The body is what the
// emulator's admin door `POST /__admin/events` takes (../KALSHI.md).

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const LONG_MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export interface TemperatureEventOptions {
  /** Series ticker, e.g. KXHIGHNY. */
  series: string;
  /** The place as Kalshi's titles name it, e.g. NYC. */
  place: string;
  /** The settlement station as the rules name it, e.g. "Central Park, New York". */
  station: string;
  /** The day, YYYY-MM-DD. */
  date: string;
  /** The bottom threshold's cap: the lowest bracket starts here. */
  lowest: number;
  /** YES mid of each market, bottom threshold first: brackets = prices.length − 2. */
  prices: number[];
  /** Contracts traded all-time per market (24 h volume is a twentieth of it on the emulator). */
  volume?: number;
  closeInDays?: number;
}

interface BucketSpec {
  suffix: string;
  yes_sub_title: string;
  no_sub_title: string;
  strike_type: 'less' | 'between' | 'greater';
  floor_strike?: number;
  cap_strike?: number;
}

/** The buckets, bottom to top: `less` than `lowest`, two-degree brackets, `greater` than the last. */
function buckets(lowest: number, brackets: number): BucketSpec[] {
  const out: BucketSpec[] = [
    {
      suffix: `T${lowest}`,
      yes_sub_title: `${lowest - 1}° or below`,
      no_sub_title: `${lowest - 1}° or below`,
      strike_type: 'less',
      cap_strike: lowest,
    },
  ];
  for (let i = 0; i < brackets; i++) {
    const lo = lowest + 2 * i;
    const label = `${lo}° to ${lo + 1}°`;
    out.push({
      suffix: `B${lo + 0.5}`,
      yes_sub_title: label,
      no_sub_title: label,
      strike_type: 'between',
      floor_strike: lo,
      cap_strike: lo + 1,
    });
  }
  const top = lowest + 2 * brackets - 1;
  out.push({
    suffix: `T${top}`,
    yes_sub_title: `${top + 1}° or above`,
    no_sub_title: `${top + 1}° or above`,
    strike_type: 'greater',
    floor_strike: top,
  });
  return out;
}

/** The admin body of a daily highest-temperature event. */
export function highTemperatureEvent(o: TemperatureEventOptions) {
  if (o.prices.length < 3) throw new Error('a temperature event has two thresholds and at least one bracket');
  const [y, m, d] = o.date.split('-').map(Number) as [number, number, number];
  const day = `${MONTHS[m - 1]} ${d}, ${y}`;
  const title = `Highest temperature in ${o.place} on ${day}?`;
  const eventTicker = `${o.series}-${String(y % 100).padStart(2, '0')}${MONTHS[m - 1]!.toUpperCase()}${String(d).padStart(2, '0')}`;
  return {
    title,
    sub_title: `On ${day}`,
    series_ticker: o.series,
    event_ticker: eventTicker,
    category: 'Climate and Weather',
    mutually_exclusive: true,
    markets: buckets(o.lowest, o.prices.length - 2).map((b, i) => ({
      ...b,
      title,
      yes: o.prices[i],
      volume: o.volume ?? 60_000,
      close_in_days: o.closeInDays ?? 1.5,
      rules_primary: `If the highest temperature recorded in ${o.station} for ${LONG_MONTHS[m - 1]} ${d}, ${y} is ${b.yes_sub_title}, then the market resolves to Yes.`,
    })),
  };
}
