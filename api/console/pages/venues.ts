import type { outsideHostHealth } from '../../../shared/composition/host-health.js';
import type { overdueSettlements } from '../../../shared/domains/trading/venue-settlement.js';
import type { FillFeedStatus } from '../../../shared/domains/fill-feed/fill-feed-status.js';
import type { ManagedWalletApprovalRow } from '../../../shared/composition/onchain.js';
import { html, when, type Html } from '../html.js';

const CIRCUIT_CLASS = { closed: 'ok', half_open: 'warn', open: 'bad' } as const;

export function venuesPage(
  health: ReturnType<typeof outsideHostHealth>,
  settlements: Awaited<ReturnType<typeof overdueSettlements>>,
  fillFeed: FillFeedStatus,
  managedWallets: readonly ManagedWalletApprovalRow[] = [],
): Html {
  return html`<h1>Venues</h1>
    <p class="lead">
      Mode: <strong>${health.mode}</strong>. A circuit opens after repeated failures and lets one trial
      request through after its cool-down (half open).
    </p>
    ${health.venues.map(
      (v) =>
        html`<table>
            <caption>
              ${v.venue}
            </caption>
            <thead>
              <tr>
                <th scope="col">Base URL</th>
                <th scope="col">Circuit</th>
                <th scope="col">Last success</th>
                <th scope="col">Last error</th>
                <th scope="col">Error</th>
                <th scope="col">Consecutive failures</th>
              </tr>
            </thead>
            <tbody>
              ${
                v.hosts.length
                  ? v.hosts.map(
                      (h) =>
                        html`<tr>
                          <td><code>${h.base_url}</code></td>
                          <td>
                            <span class="${CIRCUIT_CLASS[h.circuit]}">${h.circuit.replace('_', ' ')}</span>
                          </td>
                          <td>${when(h.last_success_at)}</td>
                          <td>${when(h.last_error_at)}</td>
                          <td>${h.last_error ?? ''}</td>
                          <td class="num">${h.consecutive_failures}</td>
                        </tr>`,
                    )
                  : html`<tr>
                      <td colspan="6" class="muted">In-house venue: no outside hosts.</td>
                    </tr>`
              }
            </tbody>
          </table>
          <br />`,
    )}
    ${fillFeedTable(fillFeed)}
    <br />
    ${overdueTable(settlements)}
    <br />
    ${managedWalletsTable(managedWallets)}`;
}

const APPROVAL_CLASS = { approved: 'ok', pending: 'warn', failed: 'bad', none: 'muted' } as const;

/** Managed wallets and their trading approvals, which the service sets before each one's first order. */
function managedWalletsTable(rows: readonly ManagedWalletApprovalRow[]): Html {
  return html`<table>
    <caption>
      Managed wallets (newest ${rows.length}): trading approvals, set by the service before a wallet’s first
      order
    </caption>
    <thead>
      <tr>
        <th scope="col">Wallet</th>
        <th scope="col">User</th>
        <th scope="col">Approvals</th>
        <th scope="col">Reason</th>
        <th scope="col">Approved</th>
        <th scope="col">Created</th>
      </tr>
    </thead>
    <tbody>
      ${
        rows.length
          ? rows.map(
              (r) =>
                html`<tr>
                  <td><code>${r.address}</code></td>
                  <td><code>${r.user_id}</code></td>
                  <td>
                    <span class="${APPROVAL_CLASS[r.approvals]}"
                      >${r.approvals === 'none' ? 'not yet' : r.approvals}</span
                    >
                  </td>
                  <td>${r.error ?? ''}</td>
                  <td>${when(r.approved_at)}</td>
                  <td>${when(r.created_at)}</td>
                </tr>`,
            )
          : html`<tr>
              <td colspan="6" class="muted">No managed wallet yet.</td>
            </tr>`
      }
    </tbody>
  </table>`;
}

/** The fill feed Reactor reacts to: how far behind the chain it is, and what flows through it. */
function fillFeedTable(f: FillFeedStatus): Html {
  return html`<table>
    <caption>
      Fill feed (${f.enabled ? `polled every ${f.poll_ms} ms` : 'disabled'}, final after ${f.confirmations}
      blocks; following: ${f.holder ?? 'nobody'}; Reactor signals in the last minute: ${f.signals_per_minute})
    </caption>
    <thead>
      <tr>
        <th scope="col">Venue</th>
        <th scope="col">Cursor</th>
        <th scope="col">Head</th>
        <th scope="col">Lag (blocks)</th>
        <th scope="col">Lag (s)</th>
        <th scope="col">Fills / min</th>
        <th scope="col">Last poll</th>
      </tr>
    </thead>
    <tbody>
      ${
        f.venues.length
          ? f.venues.map(
              (v) =>
                html`<tr>
                  <td>${v.venue}</td>
                  <td class="num">${v.cursor_block ?? '—'}</td>
                  <td class="num">${v.head_block ?? '—'}</td>
                  <td class="num">${v.lag_blocks ?? '—'}</td>
                  <td class="num">${v.lag_seconds ?? '—'}</td>
                  <td class="num">${v.fills_per_minute}</td>
                  <td>${when(v.polled_at)}</td>
                </tr>`,
            )
          : html`<tr>
              <td colspan="7" class="muted">No venue of this deployment publishes its fills.</td>
            </tr>`
      }
    </tbody>
  </table>`;
}

/** Matches the chain has not settled past SETTLEMENT_OVERDUE_MINUTES: the operator checks them on the venue. */
function overdueTable(s: Awaited<ReturnType<typeof overdueSettlements>>): Html {
  return html`<table>
    <caption>
      Settlements overdue (not final on chain after ${s.overdue_after_minutes} minutes)
    </caption>
    <thead>
      <tr>
        <th scope="col">Trade</th>
        <th scope="col">Venue</th>
        <th scope="col">Agent</th>
        <th scope="col">Order</th>
        <th scope="col">Booked</th>
        <th scope="col">Overdue since</th>
        <th scope="col">Next look</th>
      </tr>
    </thead>
    <tbody>
      ${
        s.overdue.length
          ? s.overdue.map(
              (o) =>
                html`<tr>
                  <td><code>${o.trade_id}</code></td>
                  <td>${o.venue}</td>
                  <td><code>${o.agent_id}</code></td>
                  <td><code>${o.order_id ?? ''}</code></td>
                  <td>${when(o.booked_at)}</td>
                  <td><span class="bad">${when(o.overdue_since)}</span></td>
                  <td>${when(o.next_look_at)}</td>
                </tr>`,
            )
          : html`<tr>
              <td colspan="7" class="muted">None: every venue match is final on chain or within its time.</td>
            </tr>`
      }
    </tbody>
  </table>`;
}
