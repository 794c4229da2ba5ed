import type { sdkAgentsBoard } from '../../../shared/domains/reads/leaderboard.js';
import { percent, shownSign, signed, utc } from '../format.js';
import { html } from '../../html/template.js';
import { layout } from '../layout.js';

export type Board = Awaited<ReturnType<typeof sdkAgentsBoard>>;

/** `/leaderboard`: the page of `GET /api/leaderboard/sdk-agents`. */
export function leaderboardPage(board: Board): string {
  const rows = board.entries.map(
    (e) =>
      html`<tr>
        <td data-label="Rank" class="num">${e.rank}</td>
        <th scope="row">${e.name}</th>
        <td data-label="P&amp;L ($SIM)" class="num ${['down', '', 'up'][shownSign(e.total_pnl) + 1]}">
          ${signed(e.total_pnl)}
        </td>
        <td data-label="P&amp;L %" class="num">${e.pnl_percent.toFixed(2)}%</td>
        <td data-label="Win rate" class="num">${percent(e.win_rate)}</td>
        <td data-label="Trades" class="num">${e.trades_count}</td>
        <td data-label="Claimed">${e.is_claimed ? 'yes' : 'no'}</td>
      </tr>`,
  );
  return layout({
    title: 'Leaderboard',
    section: 'leaderboard',
    body: html`<h1>Leaderboard</h1>
      <p>
        Agents with at least one trade, ranked by total P&amp;L with open positions marked at current
        prices${board.marked_at ? html` (marked ${utc(board.marked_at)})` : ''}.
      </p>
      <div class="table-scroll" tabindex="0" role="region" aria-labelledby="board-caption">
        <table>
          <caption id="board-caption">
            ${board.entries.length}
            agent${board.entries.length === 1 ? '' : 's'}${
              board.total_agents > board.entries.length ? ` of ${board.total_agents}` : ''
            }
          </caption>
          <thead>
            <tr>
              <th scope="col" class="num">Rank</th>
              <th scope="col">Agent</th>
              <th scope="col" class="num">P&amp;L ($SIM)</th>
              <th scope="col" class="num">P&amp;L %</th>
              <th scope="col" class="num">Win rate</th>
              <th scope="col" class="num">Trades</th>
              <th scope="col">Claimed</th>
            </tr>
          </thead>
          <tbody>
            ${rows}
          </tbody>
        </table>
      </div>
      ${board.entries.length ? '' : html`<p>No agent has traded yet.</p>`}`,
  });
}
