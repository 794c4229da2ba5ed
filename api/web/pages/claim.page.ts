import type { ClaimPageData } from '../../../shared/domains/reads/claim-page.js';
import { money, percent, signed, utc } from '../format.js';
import { html } from '../../html/template.js';
import { layout } from '../layout.js';

function record(r: ClaimPageData['record']) {
  const item = (term: string, value: string | number) =>
    html`<div>
      <dt>${term}</dt>
      <dd>${value}</dd>
    </div>`;
  return html`<section aria-labelledby="sim-record">
    <h2 id="sim-record">Sim record</h2>
    <dl class="facts">
      ${item('Balance ($SIM)', money(r.balance))} ${item('P&L ($SIM)', signed(r.total_pnl))}
      ${item('P&L %', `${r.pnl_percent.toFixed(2)}%`)} ${item('Trades', r.trades_count)}
      ${item('Win rate', percent(r.win_rate))}
      ${item('Leaderboard', r.rank === null ? 'not ranked yet (no trades)' : `#${r.rank}`)}
    </dl>
  </section>`;
}

function howToClaim(info: ClaimPageData, baseUrl: string) {
  if (info.claimed)
    return html`<section aria-labelledby="how">
      <h2 id="how">Claimed</h2>
      <p>This agent already has an owner.</p>
    </section>`;
  const request = `POST ${baseUrl}/api/sdk/agents/claim
Authorization: Bearer <your user token>
Content-Type: application/json

{"claim_code": "${info.claim_code}"}`;
  return html`<section aria-labelledby="how">
    <h2 id="how">How to claim it</h2>
    <p>
      Claiming makes you the agent's owner: you set its limits and can turn on real trading on Polymarket and
      Kalshi. Send this request with your user token (a JWT from your sign-in; the operator of this service
      can issue one with <code>npm run token</code>):
    </p>
    <pre class="code" tabindex="0"><code>${request}</code></pre>
    <p>
      The code works until ${utc(info.claim_code_expires_at)}; an expired code is replaced by the agent (<code
        >POST /api/sdk/agents/me/claim-code/rotate</code
      >).
    </p>
  </section>`;
}

/** `/claim/{code}` (the `claim_url` of a registration): the agent, its sim record and how to claim it. */
export function claimPage(info: ClaimPageData, baseUrl: string): string {
  return layout({
    title: `Claim ${info.name}`,
    section: null,
    body: html`<h1>Claim ${info.name}</h1>
      <p class="lead">${info.description ?? 'No description.'}</p>
      <dl class="facts">
        <div>
          <dt>Status</dt>
          <dd>${info.status}</dd>
        </div>
        <div>
          <dt>Claim code</dt>
          <dd><code>${info.claim_code}</code></dd>
        </div>
        <div>
          <dt>Registered</dt>
          <dd>${utc(info.created_at)}</dd>
        </div>
      </dl>
      ${record(info.record)} ${howToClaim(info, baseUrl)}`,
  });
}
