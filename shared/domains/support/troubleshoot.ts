import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import type { SettingsCache } from '../limits/settings-cache.js';
import type { TierCache } from '../users/tier-cache.js';
import { AppError } from '../../infra/errors.js';
import type { AgentRecord } from '../agents/agent.model.js';
import { cooldownsView } from '../limits/cooldowns-view.js';
import { DailyQuota } from '../limits/daily-quota.js';
import { TROUBLESHOOT_PATTERNS } from './troubleshoot-patterns.js';
import type { TroubleshootRequest } from './troubleshoot.schemas.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type TroubleshootDeps = Pick<InfraDeps, 'env' | 'redis' | 'invalidation' | 'clock'> & {
  models: Models;
  caches: SettingsCache & TierCache;
};

/** Assisted answers per agent and UTC day (spec §8). */
export const ASSISTED_PER_DAY = 5;

const GENERIC_FIX =
  'Read the error body: `error` says what happened and `fix` what to do; `error_code` is stable. GET /api/sdk/agents/{agent_id}/cooldowns shows what blocks trading now.';

/** The first pattern the text matches, shaped as the MCP client reads it (`matched`, `fix`, `source`). */
export function matchError(text: string) {
  const hit = TROUBLESHOOT_PATTERNS.find((p) => p.pattern.test(text));
  return hit
    ? { matched: true, error_code: hit.id, explanation: hit.explanation, fix: hit.fix, source: hit.source }
    : { matched: false, error_code: null, explanation: null, fix: GENERIC_FIX, source: null };
}

/** Takes one of the agent's assisted answers for today, or answers 429; a store that fails is a 503. */
async function takeAssistedAnswer(deps: TroubleshootDeps, agentId: string): Promise<number> {
  const quota = new DailyQuota(deps.redis, deps.env.QUEUE_PREFIX, 'troubleshoot');
  const taken = await quota.take(agentId, ASSISTED_PER_DAY, deps.clock());
  if (!taken.ok)
    throw new AppError(
      429,
      'troubleshoot_limit_reached',
      `Assisted troubleshooting is limited to ${ASSISTED_PER_DAY} answers per day`,
      'Send only error_text (pattern matching is free and unlimited), or try again after midnight UTC.',
      { retryable: true },
    );
  return taken.remaining;
}

/** The error text first, then the question, then the conversation newest first: the first that matches wins. */
function matchFirst(pieces: string[]) {
  for (const piece of pieces) {
    const match = matchError(piece);
    if (match.matched) return match;
  }
  return matchError('');
}

/** What the agent's own account says right now: status, kill switch, daily limit, cooldowns, recent failures. */
async function diagnose(deps: TroubleshootDeps, agent: AgentRecord): Promise<string[]> {
  const findings: string[] = [];
  if (agent.status === 'suspended')
    findings.push('The agent is suspended (released by its owner): trading is refused.');
  if (agent.status === 'broke')
    findings.push('The agent is broke: its $SIM balance is zero; it can still sell.');
  if (!agent.claimedBy)
    findings.push('The agent is unclaimed: it trades on sim only until a human claims it.');
  const blocks = await cooldownsView(deps, agent);
  if (blocks.trading_paused) findings.push('The kill switch (trading_paused) is on: every trade is refused.');
  if (blocks.daily.limit_reached)
    findings.push(
      `The daily limit is used up (${blocks.daily.trades_today}/${blocks.daily.max_trades_per_day} buys); it resets at ${blocks.daily.resets_at}.`,
    );
  for (const c of blocks.cooldowns.filter((c) => c.market_id))
    findings.push(
      `${c.side?.toUpperCase()} buys on market ${c.market_id} wait until ${c.expires_at} (${c.kind}).`,
    );
  const failed = await deps.models.Trade.find(
    { agentId: agent._id, status: { $in: ['rejected', 'failed'] } },
    { failureReason: 1, marketId: 1, createdAt: 1 },
  )
    .sort({ createdAt: -1 })
    .limit(3)
    .lean();
  for (const t of failed) findings.push(`A recent trade on market ${t.marketId} failed: ${t.failureReason}`);
  return findings;
}

/**
 * `POST /api/sdk/troubleshoot`. `error_text` alone is matched against the service's own errors (no
 * key needed). `message` asks for assisted help: it needs the agent's key, matches the message and
 * looks at the agent's account (5 answers a day). There is no language model behind it.
 */
export async function troubleshoot(
  deps: TroubleshootDeps,
  agent: AgentRecord | undefined,
  input: TroubleshootRequest,
) {
  const text = input.error_text ?? '';
  if (!input.message) return { mode: 'pattern' as const, ...matchError(text) };
  if (!agent)
    throw new AppError(
      401,
      'unauthorized',
      'Missing or invalid Authorization header',
      'Assisted troubleshooting (message) needs your agent key: send `Authorization: Bearer sk_live_…`, or send only error_text for free pattern matching.',
      { headers: { 'WWW-Authenticate': 'Bearer' } },
    );
  const turns = (input.conversation ?? []).map((c) => (typeof c === 'string' ? c : c.content)).reverse();
  const match = matchFirst([text, input.message, ...turns].filter(Boolean));
  const findings = await diagnose(deps, agent);
  // Charged once the answer is ready: a failure above costs the agent nothing.
  const remaining = await takeAssistedAnswer(deps, agent._id);
  const answer = [
    match.matched ? `${match.explanation} ${match.fix}` : 'No known error matches what you sent.',
    findings.length
      ? `On your account right now: ${findings.join(' ')}`
      : 'Nothing on your account blocks trading right now.',
  ].join(' ');
  return { mode: 'assisted' as const, ...match, diagnostics: findings, answer, remaining_today: remaining };
}
