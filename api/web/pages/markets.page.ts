import type { MarketView } from '../../../shared/domains/markets/market-view.js';
import { isPoolVenue, venueIds } from '../../../shared/domains/venues/venue-id.js';
import { cents, money, relativeTime } from '../format.js';
import { html } from '../../html/template.js';
import { layout } from '../layout.js';

export const MARKET_LIST_STATUSES = ['active', 'trending', 'new', 'ending', 'resolved'] as const;

export interface MarketsFilter {
  q?: string;
  source?: string;
  status: string;
}

const option = (value: string, label: string, selected: string | undefined) =>
  html`<option value="${value}" ${value === (selected ?? '') ? html` selected` : ''}>${label}</option>`;

/** The filters are a plain GET form: they work without JavaScript, and every view has a URL. */
function filterForm(f: MarketsFilter) {
  return html`<form class="filters" method="get" action="/" role="search" aria-label="Filter markets">
    <div class="field">
      <label for="q">Search</label>
      <input
        id="q"
        name="q"
        type="search"
        value="${f.q ?? ''}"
        placeholder="Question or tag"
        maxlength="200"
      />
    </div>
    <div class="field">
      <label for="source">Source</label>
      <select id="source" name="source">
        ${option('', 'All sources', f.source)}
        ${venueIds().map((v) => option(v, isPoolVenue(v) ? `${v} (native)` : v, f.source))}
      </select>
    </div>
    <div class="field">
      <label for="status">Status</label>
      <select id="status" name="status">
        ${MARKET_LIST_STATUSES.map((s) => option(s, s, f.status))}
      </select>
    </div>
    <button type="submit">Filter</button>
  </form>`;
}

function row(m: MarketView, now: Date) {
  return html`<tr>
    <th scope="row"><a href="/markets/${m.id}">${m.question}</a></th>
    <td data-column="source" data-label="Source">
      <span class="tag tag-${m.import_source}">${m.import_source}</span>
    </td>
    <td data-column="status" data-label="Status">${m.status}</td>
    <td data-column="price" data-label="Sim price" class="num">${cents(m.current_probability)}</td>
    <td data-column="external-price" data-label="External price" class="num">
      ${cents(m.external_price_yes)}
    </td>
    <td data-column="volume" data-label="24 h volume" class="num">${money(m.volume_24h)}</td>
    <td data-column="resolves" data-label="Resolves">
      ${m.status === 'resolved' ? `resolved ${m.outcome ? 'YES' : 'NO'}` : relativeTime(m.resolves_at, now)}
    </td>
  </tr>`;
}

/** `/`: the market catalogue of `GET /api/markets`, with its search and filters. */
export function marketsPage(
  markets: MarketView[],
  filter: MarketsFilter,
  notices: string[],
  now: Date,
): string {
  return layout({
    title: 'Markets',
    section: 'markets',
    body: html`<h1>Markets</h1>
      ${filterForm(filter)} ${notices.map((n) => html`<p class="notice" role="status">${n}</p>`)}
      <div class="table-scroll" tabindex="0" role="region" aria-labelledby="markets-caption">
        <table>
          <caption id="markets-caption">
            ${markets.length}
            market${markets.length === 1 ? '' : 's'}${filter.q ? html` matching “${filter.q}”` : ''}
          </caption>
          <thead>
            <tr>
              <th scope="col">Market</th>
              <th scope="col">Source</th>
              <th scope="col">Status</th>
              <th scope="col" class="num">Sim price</th>
              <th scope="col" class="num">External price</th>
              <th scope="col" class="num">24 h volume</th>
              <th scope="col">Resolves</th>
            </tr>
          </thead>
          <tbody>
            ${markets.map((m) => row(m, now))}
          </tbody>
        </table>
      </div>
      ${markets.length ? '' : html`<p>No market matches these filters. <a href="/">Show all active markets</a>.</p>`}`,
  });
}
