import type { AuditReport } from '../../../shared/domains/audit/audit.js';
import { html, when, type Html } from '../html.js';
import { csrfField } from '../layout.js';
import type { LastAudit } from '../last-audit.js';

export function auditPage(csrf: string | null, last: LastAudit | null): Html {
  return html`<h1>Ledger audit</h1>
    <p class="lead">
      Recomputes every agent’s balance and positions from its ledger and every market’s book from its event
      log, and compares them with the stored documents. It reads everything, so it runs when you ask.
    </p>
    <form method="post" action="/admin/audit">
      ${csrfField(csrf)}<button type="submit">Run the audit</button>
    </form>
    ${
      last
        ? html`<p>Last run ${when(last.at)} by <strong>${last.by}</strong>.</p>
            ${auditResult(last.report)}`
        : html`<p class="muted">No audit has been run from the console yet.</p>`
    }`;
}

function auditResult(r: AuditReport): Html {
  return html`<h2>
      Result:
      ${r.ok ? html`<span class="ok">consistent</span>` : html`<span class="bad">${r.differenceCount} differences</span>`}
    </h2>
    <p>
      Agents checked: ${r.checked.agents}; positions: ${r.checked.positions}; markets: ${r.checked.markets};
      behind (still applying their last entries): ${r.behind.agents} agents, ${r.behind.markets} markets. Took
      ${r.tookMs} ms.
    </p>
    ${
      r.differences.length > 0 &&
      html`<table>
        <caption>
          Differences${r.truncated ? ' (first ones only)' : ''}; values in micro-units
        </caption>
        <thead>
          <tr>
            <th scope="col">Kind</th>
            <th scope="col">Id</th>
            <th scope="col">Field</th>
            <th scope="col">Expected (recomputed)</th>
            <th scope="col">Actual (stored)</th>
          </tr>
        </thead>
        <tbody>
          ${r.differences.map(
            (d) =>
              html`<tr>
                <td>${d.kind}</td>
                <td><code>${d.id}</code></td>
                <td>${d.field}</td>
                <td class="num">${String(d.expected)}</td>
                <td class="num">${String(d.actual)}</td>
              </tr>`,
          )}
        </tbody>
      </table>`
    }`;
}
