import { TIERS } from '../../../shared/domains/users/user.model.js';
import { csrfField } from '../layout.js';
import { html, when, type HtmlValue, type Html } from '../html.js';

export interface OpenSimMarket {
  _id: string;
  question: string;
  resolvesAt: Date | null;
}

export function marketsPage(csrf: string | null, open: OpenSimMarket[], result?: HtmlValue): Html {
  return html`<h1>Resolve a sim market</h1>
    <p class="lead">
      Resolving pays each winning share 1 $SIM (void: every share 0.5 $SIM) and closes the market for good
      (the same outcome again answers the same; another is refused). Imported markets resolve from their venue
      by themselves.
    </p>
    ${result}
    <form class="stacked" method="post" action="/admin/markets/resolve">
      ${csrfField(csrf)}
      <label for="market_id">Market id</label>
      <input id="market_id" name="market_id" required maxlength="200" autocomplete="off" spellcheck="false" />
      <label for="outcome">Outcome</label>
      <select id="outcome" name="outcome" required>
        <option value="yes">YES wins</option>
        <option value="no">NO wins</option>
        <option value="void">Void (50-50: every share pays 0.5)</option>
      </select>
      <button type="submit" class="danger">Resolve</button>
    </form>
    <h2>Open sim markets resolving soonest</h2>
    ${
      open.length
        ? html`<table>
            <caption>
              Open sim markets
            </caption>
            <thead>
              <tr>
                <th scope="col">Market id</th>
                <th scope="col">Question</th>
                <th scope="col">Resolves</th>
              </tr>
            </thead>
            <tbody>
              ${open.map(
                (m) =>
                  html`<tr>
                    <td><code>${m._id}</code></td>
                    <td>${m.question}</td>
                    <td>${when(m.resolvesAt)}</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
        : html`<p class="muted">No open sim markets.</p>`
    }`;
}

export interface PendingSkill {
  id: string;
  name: string;
  description: string;
  category: string;
  revision: number;
  registry_url: string | null;
  created_at: string;
}

export function skillsPage(csrf: string | null, pending: PendingSkill[], result?: HtmlValue): Html {
  return html`<h1>Skill review</h1>
    <p class="lead">
      Submitted skills wait here, oldest first. Approved skills are listed to agents; the note of a rejection
      is shown to the submitter.
    </p>
    ${result}
    ${
      pending.length
        ? pending.map(
            (s) =>
              html`<form
                  class="stacked"
                  method="post"
                  action="/admin/skills/${encodeURIComponent(s.id)}/review"
                  aria-label="Review ${s.name}"
                >
                  <h2>
                    ${s.name} <span class="muted">(${s.id}, revision ${s.revision}, ${s.category})</span>
                  </h2>
                  <p>${s.description}</p>
                  ${s.registry_url && html`<p><a href="${s.registry_url}" rel="noreferrer noopener">${s.registry_url}</a></p>`}
                  ${csrfField(csrf)}
                  <input type="hidden" name="revision" value="${s.revision}" />
                  <label for="note-${s.id}">Note to the submitter (optional)</label>
                  <textarea id="note-${s.id}" name="note" maxlength="1000" rows="2"></textarea>
                  <button type="submit" name="status" value="approved">Approve</button>
                  <button type="submit" name="status" value="rejected" class="danger">Reject</button>
                </form>
                <br />`,
          )
        : html`<p class="muted">No skills are waiting for review.</p>`
    }`;
}

export function usersPage(csrf: string | null, result?: HtmlValue): Html {
  return html`<h1>User tiers</h1>
    <p class="lead">A user’s tier sets how many agents they can have active.</p>
    ${result}
    <form class="stacked" method="post" action="/admin/users/tier">
      ${csrfField(csrf)}
      <label for="user_id">User id</label>
      <input id="user_id" name="user_id" required maxlength="200" autocomplete="off" spellcheck="false" />
      <p class="hint">The subject (<code>sub</code>) of the user’s token.</p>
      <label for="tier">Tier</label>
      <select id="tier" name="tier">
        ${TIERS.map((t) => html`<option value="${t}">${t}</option>`)}
      </select>
      <button type="submit">Set tier</button>
    </form>`;
}
