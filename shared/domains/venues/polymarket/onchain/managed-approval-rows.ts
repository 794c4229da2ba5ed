import type { Models } from '../../../models.js';
import type { WalletApprovalModels, WalletApprovalStatus } from './wallet-approval.model.js';

/** How many managed wallets the operator console lists (newest first). */
const LISTED = 50;

export interface ManagedWalletApprovalRow {
  user_id: string;
  address: string;
  /** `none`: no trade has asked for them yet (they are set before the wallet's first order). */
  approvals: WalletApprovalStatus | 'none';
  error: string | null;
  approved_at: string | null;
  created_at: string;
}

/**
 * For the operator console: the newest managed wallets and whether the service has set their
 * trading approvals (managed-approvals.ts records them).
 */
export async function managedApprovalRows(
  models: Pick<Models, 'Wallet'> & WalletApprovalModels,
): Promise<ManagedWalletApprovalRow[]> {
  const wallets = await models.Wallet.find({ managed: { $ne: null } }, { managed: 1 })
    .sort({ 'managed.createdAt': -1 })
    .limit(LISTED)
    .lean();
  const keys = wallets.map((w) => w.managed!.address.toLowerCase());
  const states = new Map(
    (await models.WalletApproval.find({ _id: { $in: keys } }).lean()).map((a) => [a._id, a]),
  );
  return wallets.map((w) => {
    const state = states.get(w.managed!.address.toLowerCase());
    return {
      user_id: w._id,
      address: w.managed!.address,
      approvals: state?.status ?? 'none',
      error: state?.error ?? null,
      approved_at: state?.approvedAt?.toISOString() ?? null,
      created_at: w.managed!.createdAt.toISOString(),
    };
  });
}
