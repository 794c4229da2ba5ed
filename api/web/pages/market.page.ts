import type { MarketChartHistory } from '../../../shared/domains/markets/chart-history.js';
import type { MarketView } from '../../../shared/domains/markets/market-view.js';
import { cents, money, relativeTime, utc } from '../format.js';
import { html } from '../../html/template.js';
import { layout } from '../layout.js';

/** The chart's window: a week, one point an hour (the history route's largest window). */
export const CHART_WINDOW = { hours: 168, interval: 60 } as const;

/** Newest trades listed under the chart (the chart marks all of them). */
const LISTED_TRADES = 50;

function facts(m: MarketView, now: Date) {
  const item = (term: string, value: string) =>
    html`<div>
      <dt>${term}</dt>
      <dd>${value}</dd>
    </div>`;
  return html`<dl class="facts">
    ${item('Source', m.import_source)}
    ${item('Status', m.status === 'resolved' ? `resolved ${m.outcome ? 'YES' : 'NO'}` : m.status)}
    ${item('Sim price', cents(m.current_probability))} ${item('External price', cents(m.external_price_yes))}
    ${item('24 h volume', money(m.volume_24h))}
    ${item('Resolves', m.resolves_at ? `${relativeTime(m.resolves_at, now)} (${utc(m.resolves_at)})` : '—')}
  </dl>`;
}

function tradesTable(history: MarketChartHistory) {
  const trades = history.trades.slice(-LISTED_TRADES).reverse();
  if (!trades.length) return html`<p>No trades in the last ${history.hours / 24} days.</p>`;
  return html`<div class="table-scroll" tabindex="0" role="region" aria-labelledby="trades-caption">
    <table>
      <caption id="trades-caption">
        Latest trades (${history.trades.length} in the last ${history.hours / 24} days)
      </caption>
      <thead>
        <tr>
          <th scope="col">Time</th>
          <th scope="col">Trade</th>
          <th scope="col" class="num">Amount</th>
          <th scope="col" class="num">Shares</th>
          <th scope="col" class="num">Sim price after</th>
        </tr>
      </thead>
      <tbody>
        ${trades.map(
          (t) =>
            html`<tr>
              <td data-label="Time">${utc(t.timestamp)}</td>
              <td data-label="Trade">${t.action} ${t.side?.toUpperCase()}</td>
              <td data-label="Amount" class="num">${money(t.amount)}</td>
              <td data-label="Shares" class="num">${t.shares}</td>
              <td data-label="Sim price after" class="num">${cents(t.price_after)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/**
 * `/markets/{id}`: the market, its price-history chart and its trades. The chart is drawn by uPlot
 * from `GET /api/markets/{id}/history`; without JavaScript the facts and the trades table remain.
 */
export function marketPage(m: MarketView, history: MarketChartHistory, now: Date): string {
  const historyUrl = `/api/markets/${encodeURIComponent(m.id)}/history?hours=${CHART_WINDOW.hours}&interval=${CHART_WINDOW.interval}`;
  return layout({
    title: m.question,
    section: 'markets',
    chart: true,
    body: html`<p class="crumbs"><a href="/">Markets</a></p>
      <h1>${m.question}</h1>
      ${facts(m, now)}
      <section aria-labelledby="chart-title">
        <h2 id="chart-title">Price history</h2>
        <figure id="price-chart" class="chart" data-history-url="${historyUrl}" data-state="loading">
          <div class="chart-canvas"></div>
          <figcaption>
            YES price over the last ${CHART_WINDOW.hours / 24} days: the sim
            price${history.has_external_price ? ', the external venue price' : ''} and the trades (dots). The
            trades are also listed below.
          </figcaption>
        </figure>
      </section>
      <section aria-labelledby="trades-title">
        <h2 id="trades-title">Trades</h2>
        ${tradesTable(history)}
      </section>
      ${
        m.resolution_criteria
          ? html`<section aria-labelledby="rules-title">
              <h2 id="rules-title">Resolution</h2>
              <p>${m.resolution_criteria}</p>
            </section>`
          : ''
      }`,
  });
}
