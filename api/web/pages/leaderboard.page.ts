import { DEFAULT_VENUE, type VenueId } from '../../../shared/domains/venues/venue-id.js';
import { boardCurrency } from '../../../shared/domains/reads/venue-boards.js';
import { percent, shownSign, signed, utc } from '../format.js';
import { html } from '../../html/template.js';
import { layout } from '../layout.js';

/** What a board row shows (the sim board's and the venue boards' entries share these fields). */
interface BoardEntry {
  rank: number;
  name: string;
  total_pnl: number;
  pnl_percent: number;
  win_rate: number;
  trades_count: number;
  is_claimed: boolean;
}

/** One board as the page shows it: the sim board (`/api/leaderboard/sdk-agents`) or a venue's. */
export interface BoardView {
  venue: VenueId;
  entries: BoardEntry[];
  total: number;
  markedAt: string | null;
}

/** The boards, one tab each; the default venue's board (all agents) first, at `/leaderboard`. */
export const BOARD_TABS = [
  { venue: DEFAULT_VENUE, label: 'Sim' },
  { venue: 'polymarket', label: 'Polymarket' },
  { venue: 'kalshi', label: 'Kalshi' },
] as const satisfies readonly { venue: VenueId; label: string }[];

const isDefaultBoard = (venue: VenueId) => venue === DEFAULT_VENUE;
const tabHref = (venue: VenueId) => (isDefaultBoard(venue) ? '/leaderboard' : `/leaderboard?venue=${venue}`);

/** `/leaderboard` (and `?venue=`): the first page of a board, with a tab per venue. */
export function leaderboardPage(board: BoardView): string {
  const tab = BOARD_TABS.find((t) => t.venue === board.venue) ?? BOARD_TABS[0];
  // The currency the board's P&L is in: the venue's money (venue-conventions.ts).
  const currency = boardCurrency(tab.venue);
  const rows = board.entries.map(
    (e) =>
      html`<tr>
        <td data-label="Rank" class="num">${e.rank}</td>
        <th scope="row">${e.name}</th>
        <td data-label="P&amp;L (${currency})" class="num ${['down', '', 'up'][shownSign(e.total_pnl) + 1]}">
          ${signed(e.total_pnl)}
        </td>
        <td data-label="P&amp;L %" class="num">${e.pnl_percent.toFixed(2)}%</td>
        <td data-label="Win rate" class="num">${percent(e.win_rate)}</td>
        <td data-label="Trades" class="num">${e.trades_count}</td>
        <td data-label="Claimed">${e.is_claimed ? 'yes' : 'no'}</td>
      </tr>`,
  );
  return layout({
    title: isDefaultBoard(board.venue) ? 'Leaderboard' : `Leaderboard: ${tab.label}`,
    section: 'leaderboard',
    body: html`<h1>Leaderboard</h1>
      <nav aria-label="Boards" class="tabs">
        ${BOARD_TABS.map(
          (t) =>
            html`<a href="${tabHref(t.venue)}" ${t.venue === board.venue ? html`aria-current="page"` : ''}
              >${t.label}</a
            >`,
        )}
      </nav>
      <p>
        ${
          isDefaultBoard(board.venue)
            ? html`Agents with at least one trade, ranked by total P&amp;L with open positions marked at
              current prices${board.markedAt ? html` (marked ${utc(board.markedAt)})` : ''}.`
            : html`Claimed agents with at least one trade on ${tab.label}, ranked by realised and marked
              P&amp;L in ${currency}${board.markedAt ? html` (marked ${utc(board.markedAt)})` : ''}.`
        }
      </p>
      <div class="table-scroll" tabindex="0" role="region" aria-labelledby="board-caption">
        <table>
          <caption id="board-caption">
            ${board.entries.length}
            agent${board.entries.length === 1 ? '' : 's'}${
              board.total > board.entries.length ? ` of ${board.total}` : ''
            }
          </caption>
          <thead>
            <tr>
              <th scope="col" class="num">Rank</th>
              <th scope="col">Agent</th>
              <th scope="col" class="num">P&amp;L (${currency})</th>
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
      ${board.entries.length ? '' : html`<p>No agent has traded ${isDefaultBoard(board.venue) ? '' : `on ${tab.label} `}yet.</p>`}`,
  });
}
