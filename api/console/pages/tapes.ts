import type { TapeCoverage } from '../../../shared/domains/tapes/tape-coverage.js';
import type { RecorderRun } from '../../../shared/domains/tapes/record-tapes.js';
import { html, when, type Html } from '../html.js';

const megabytes = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MB`;

/** The backtest tape store: what tapes can cover, by source, and the recorder's last run. */
export function tapesPage(coverage: TapeCoverage, recordEverySeconds: number): Html {
  const run = coverage.recorder.last_run as RecorderRun | null;
  return html`<h1>Backtest tapes</h1>
    <p class="lead">
      Tapes cover <strong>${coverage.coverage_t0 ?? 'nothing yet'}</strong> to
      <strong>${coverage.coverage_t1}</strong> (excluded): ${coverage.prints} prints of ${coverage.markets}
      markets in ${coverage.files} files (${megabytes(coverage.bytes)}), dataset revision
      <code>${coverage.dataset_rev}</code>. The recorder (schedule
      <a href="/admin/schedules">record-tapes</a>) appends every ${recordEverySeconds} s and is
      <span class="${coverage.live ? 'ok' : 'warn'}">${coverage.live ? 'live' : 'not running'}</span>.
    </p>
    <table>
      <caption>
        Sources
      </caption>
      <thead>
        <tr>
          <th scope="col">Source</th>
          <th scope="col">First day</th>
          <th scope="col">Last day</th>
          <th scope="col">Prints</th>
          <th scope="col">Markets with prints</th>
        </tr>
      </thead>
      <tbody>
        ${
          coverage.sources.length
            ? coverage.sources.map(
                (s) =>
                  html`<tr>
                    <td><code>${s.source}</code></td>
                    <td>${s.first_day}</td>
                    <td>${s.last_day}</td>
                    <td class="num">${s.prints}</td>
                    <td class="num">${s.markets}</td>
                  </tr>`,
              )
            : html`<tr>
                <td colspan="5" class="muted">Nothing recorded or imported yet.</td>
              </tr>`
        }
      </tbody>
    </table>
    <br />
    <table>
      <caption>
        Last recorder run
      </caption>
      <tbody>
        <tr>
          <th scope="row">Started</th>
          <td>${when(run?.startedAt ?? null)}</td>
        </tr>
        <tr>
          <th scope="row">Finished</th>
          <td>${when(run?.finishedAt ?? null)}</td>
        </tr>
        <tr>
          <th scope="row">Market rows written</th>
          <td class="num">${run?.markets ?? 0}</td>
        </tr>
        <tr>
          <th scope="row">Prints written</th>
          <td>
            ${
              Object.entries(run?.prints ?? {})
                .map(([source, n]) => `${source} ${n}`)
                .join(', ') || 'none'
            }
          </td>
        </tr>
        <tr>
          <th scope="row">Imported markets read on their venues</th>
          <td class="num">${run?.venueMarkets ?? 0}</td>
        </tr>
        <tr>
          <th scope="row">Errors</th>
          <td>${run?.errors.length ? run.errors.join('; ') : 'none'}</td>
        </tr>
      </tbody>
    </table>
    <p class="muted">
      Load a dataset of your own with <code>npm run tape:import -- --markets … --quant …</code> (README,
      “Backtest tapes”).
    </p>`;
}
