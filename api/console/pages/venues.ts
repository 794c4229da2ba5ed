import type { outsideHostHealth } from '../../../shared/composition/host-health.js';
import { html, when, type Html } from '../html.js';

const CIRCUIT_CLASS = { closed: 'ok', half_open: 'warn', open: 'bad' } as const;

export function venuesPage(health: ReturnType<typeof outsideHostHealth>): Html {
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
    )}`;
}
