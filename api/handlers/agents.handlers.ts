import { claimInfoView, agentMeView } from '../../shared/domains/agents/agent-views.js';
import { registerAgent } from '../../shared/domains/agents/register-agent.js';
import { updateAgentSettings } from '../../shared/domains/agents/update-agent-settings.js';
import { notFound } from '../../shared/infra/errors.js';
import { loadGuard } from '../../shared/domains/limits/trade-guard.js';
import { realTradingEnabled } from '../../shared/domains/limits/trading-settings.js';
import { claimUrlFor } from '../../shared/domains/trading/context.js';
import { publicBaseUrl, type Env } from '../../shared/infra/config/env.js';
import type { agentEndpoints } from '../endpoints/agents.endpoints.js';
import type { HandlersFor } from '../endpoints/endpoint.js';
import type { Deps } from '../../shared/composition/deps.js';

const claimUrlOf = (env: Env) => claimUrlFor(publicBaseUrl(env));

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

async function findByClaimCode(deps: Deps, code: string) {
  const agent = await deps.models.Agent.findOne({ claimCode: code }).lean();
  if (!agent) {
    throw notFound(
      'Claim code',
      'Check the code: it is the `claim_code` returned when the agent registered (e.g. reef-X4B2Q7).',
    );
  }
  return agent;
}

export const agentHandlers: HandlersFor<typeof agentEndpoints> = {
  registerAgent: async ({ deps, body }) => registerAgent(deps.models.Agent, body, claimUrlOf(deps.env)),

  getMe: async ({ deps, agent, query }) => {
    const include = new Set((query.include ?? '').split(',').map((s) => s.trim().toLowerCase()));
    const record = agent.toObject();
    const { owner, settings } = await loadGuard(deps, record);
    return agentMeView(record, {
      includePnl: include.has('pnl'),
      claimUrl: claimUrlOf(deps.env)(agent.claimCode),
      tier: owner.tier,
      importsPerDay: deps.env.TIER_IMPORTS_PER_DAY[owner.tier],
      realTradingEnabled: realTradingEnabled(owner, settings) && record.status !== 'suspended',
    });
  },

  updateMySettings: async ({ deps, agent, body }) => updateAgentSettings(deps.models.Agent, agent._id, body),

  getClaimInfo: async ({ deps, params }) => claimInfoView(await findByClaimCode(deps, params.claim_code)),

  claimPage: async ({ deps, params }) => {
    const info = claimInfoView(await findByClaimCode(deps, params.claim_code));
    return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Claim ${escapeHtml(info.name)}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;line-height:1.5">
<h1>${escapeHtml(info.name)}</h1>
<p>${escapeHtml(info.description ?? 'No description.')}</p>
<p>Status: <strong>${escapeHtml(info.status)}</strong> · Claim code: <code>${escapeHtml(info.claim_code)}</code></p>
<p>${escapeHtml(info.claim_instructions)}</p>
</body></html>`;
  },
};
