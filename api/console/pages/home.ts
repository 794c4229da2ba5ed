import type { OperatorActionView } from '../../../shared/domains/operator/record-action.js';
import { CONSOLE_PAGES, notice } from '../layout.js';
import { html, type Html } from '../html.js';
import { actionsTable } from './schedules.js';

export function homePage(actions: OperatorActionView[]): Html {
  return html`<h1>Operator console</h1>
    <p class="lead">
      Everything an operator does, without curl. Each page has a JSON twin under
      <code>/api/admin/…</code> (see <a href="/docs">/docs</a>).
    </p>
    <div class="cards">
      ${CONSOLE_PAGES.slice(1).map(
        (p) =>
          html`<div class="card">
            <h2><a href="${p.path}">${p.label}</a></h2>
            <p>${p.about}</p>
          </div>`,
      )}
    </div>
    <h2>Recent operator actions</h2>
    ${actionsTable('Operator actions', actions)}`;
}

export function loginPage(next: string, error?: string): Html {
  return html`<h1>Sign in</h1>
    <p class="lead">
      Paste the operator token (<code>OPERATOR_TOKEN</code>, or the one <code>npm start</code> printed). The
      console keeps a signed session cookie, not the token; your name goes into the audit trail.
    </p>
    ${error && notice('error', error)}
    <form class="stacked" method="post" action="/admin/login">
      <input type="hidden" name="next" value="${next}" />
      <label for="name">Your name</label>
      <input id="name" name="name" required maxlength="64" autocomplete="username" />
      <p class="hint">Shown as “who” on every action you take.</p>
      <label for="token">Operator token</label>
      <input
        id="token"
        name="token"
        type="password"
        required
        autocomplete="current-password"
        spellcheck="false"
      />
      <button type="submit">Sign in</button>
    </form>`;
}
