import { AppError } from '../../infra/errors.js';
import type { Invalidation } from '../../infra/invalidation.js';
import { isDuplicateKey } from '../refusal.js';
import type { AgentModel } from './agent.model.js';
import { expiryOfCodeIssuedAt, generateClaimCode } from './claim-code.js';

const alreadyClaimed = () =>
  new AppError(
    409,
    'already_claimed',
    'This agent has been claimed: it has no claim code to rotate',
    'Nothing to do: your human owns this agent (GET /api/sdk/agents/me shows claimed_by).',
  );

/**
 * `POST /api/sdk/agents/me/claim-code/rotate`: the unclaimed agent replaces its claim code (a code
 * shared too widely, or expired). The old code stops working at once; the new one runs for
 * CLAIM_CODE_TTL_HOURS. The write is guarded on the agent still being unclaimed.
 */
export async function rotateClaimCode(
  Agent: AgentModel,
  invalidation: Invalidation,
  agentId: string,
  opts: { ttlHours: number; now: Date; claimUrlFor: (code: string) => string },
) {
  for (let attempt = 1; ; attempt++) {
    const claimCode = generateClaimCode();
    try {
      const rotated = await Agent.updateOne(
        { _id: agentId, claimedBy: null },
        { $set: { claimCode, claimCodeIssuedAt: opts.now } },
      );
      if (rotated.matchedCount === 0) throw alreadyClaimed();
    } catch (err) {
      if (!isDuplicateKey(err) || attempt >= 5) throw err;
      continue;
    }
    // Every process's cached agent carries the code (claim_url in answers): drop them all.
    await invalidation.publish('agent', agentId);
    return {
      success: true as const,
      agent_id: agentId,
      claim_code: claimCode,
      claim_url: opts.claimUrlFor(claimCode),
      claim_code_expires_at: expiryOfCodeIssuedAt(opts.now, opts.ttlHours).toISOString(),
    };
  }
}
