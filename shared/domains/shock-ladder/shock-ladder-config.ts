import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type ShockLadderConfigDeps = Pick<InfraDeps, 'env' | 'clock'> & { models: Models };

async function configView(deps: ShockLadderConfigDeps, agentId: string) {
  const config = await deps.models.ShockLadderConfig.findById(agentId).lean();
  return {
    shock_ladder_enabled: config?.enabled ?? false,
    updated_at: config?.updatedAt.toISOString() ?? null,
    /** The detector's rule and the signals' life, so a skill can tell what arms it. */
    drop_cents: deps.env.SHOCK_LADDER_DROP_CENTS,
    window_seconds: deps.env.SHOCK_LADDER_WINDOW_SECONDS,
    signal_ttl_seconds: deps.env.SHOCK_LADDER_SIGNAL_TTL_SECONDS,
  };
}

/** `GET /api/sdk/shock-ladder/config`: off until the agent turns it on. */
export const getShockLadderConfig = configView;

/** `PATCH /api/sdk/shock-ladder/config` `{enabled}`: from the next shock on, queued for the agent or not. */
export async function patchShockLadderConfig(
  deps: ShockLadderConfigDeps,
  agentId: string,
  body: { enabled: boolean },
) {
  await deps.models.ShockLadderConfig.updateOne(
    { _id: agentId },
    { $set: { enabled: body.enabled, updatedAt: deps.clock() } },
    { upsert: true },
  );
  return configView(deps, agentId);
}
