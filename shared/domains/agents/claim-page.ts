import { notFound } from '../../infra/errors.js';
import type { Models } from '../models.js';
import { claimInfoView } from './agent-views.js';
import { assertClaimCodeLive, claimCodeExpiresAt } from './claim-code.js';

/** How long an unclaimed code works, and the time now. */
export interface ClaimCodeClock {
  ttlHours: number;
  now: Date;
}

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/**
 * `GET /api/sdk/agents/claim/{code}`: what the claim page shows about an agent (never its key); 404
 * for an unknown code, 410 for an unclaimed one past its time.
 */
export async function claimInfo(models: Pick<Models, 'Agent'>, code: string, clock: ClaimCodeClock) {
  const agent = await models.Agent.findOne({ claimCode: code }).lean();
  if (!agent) {
    throw notFound(
      'Claim code',
      'Check the code: it is the `claim_code` returned when the agent registered (e.g. reef-X4B2Q7-M9KD3T-7HWQ2P).',
    );
  }
  assertClaimCodeLive(agent, clock.ttlHours, clock.now);
  return {
    ...claimInfoView(agent),
    claim_code_expires_at: agent.claimedBy ? null : claimCodeExpiresAt(agent, clock.ttlHours).toISOString(),
  };
}

/** `GET /claim/{code}`: the human-readable claim page (the `claim_url` of a registration). */
export async function claimPage(
  models: Pick<Models, 'Agent'>,
  code: string,
  clock: ClaimCodeClock,
): Promise<string> {
  const info = await claimInfo(models, code, clock);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Claim ${escapeHtml(info.name)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;line-height:1.5">
<h1>${escapeHtml(info.name)}</h1>
<p>${escapeHtml(info.description ?? 'No description.')}</p>
<p>Status: <strong>${escapeHtml(info.status)}</strong> · Claim code: <code>${escapeHtml(info.claim_code)}</code>${
    info.claim_code_expires_at ? ` · valid until ${escapeHtml(info.claim_code_expires_at)}` : ''
  }</p>
<p>${escapeHtml(info.claim_instructions)}</p>
</body></html>`;
}
