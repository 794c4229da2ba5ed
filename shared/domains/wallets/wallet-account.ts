import { AppError } from '../../infra/errors.js';
import type { SettingsOwner } from '../users/settings-owner.js';

/**
 * Who a wallet call acts for. The wallet belongs to the human: a claimed agent's key acts on its
 * owner's wallet (shared by all their agents, like the settings), a user token on the user's own.
 * An unclaimed agent has no account to hold a wallet: it reads "no wallet" and its writes are
 * refused with the claim URL, since real trading needs the claim anyway (spec §5.5).
 */
export interface WalletAccount {
  owner: SettingsOwner;
  /** For an unclaimed agent: where its human claims it. */
  claimUrl: string | null;
  /** The calling agent was released by its human. */
  suspended: boolean;
}

/** The user whose wallet a write changes, or the refusal for an agent that cannot change it. */
export function walletUserOf(account: WalletAccount): string {
  // First: a released agent acts for no account (agents/agent.model.ts actingUserOf), yet is no unclaimed one.
  if (account.suspended)
    throw new AppError(
      403,
      'agent_suspended',
      'A released agent cannot change the wallet',
      'Your human can reactivate it with POST /api/sdk/agents/{agent_id}/reactivate, or manage the wallet with their user token.',
    );
  if (account.owner.kind !== 'user')
    throw new AppError(
      403,
      'agent_not_claimed',
      'Agent must be claimed before a wallet can be linked',
      'Ask your human to claim this agent at claim_url; the wallet then belongs to their account and serves all their agents.',
      { body: { claim_url: account.claimUrl } },
    );
  return account.owner.id;
}
