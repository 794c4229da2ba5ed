import { AppError } from '../../infra/errors.js';
import type { Models } from '../models.js';
import type { WalletRecord } from './wallet.model.js';

type WalletChanges = Partial<Omit<WalletRecord, '_id' | 'version' | 'createdAt' | 'updatedAt'>>;

export const walletChanged = () =>
  new AppError(
    409,
    'wallet_changed',
    'The wallet changed while this request was being handled',
    'Read GET /api/sdk/settings and send the request again.',
    { retryable: true },
  );

const isDuplicateKey = (err: unknown) => (err as { code?: number }).code === 11000;

/**
 * Writes `changes` onto the wallet exactly as `current` was read (guarded on its version; a new
 * document when there was none) and returns the record as written. A concurrent change in between
 * is a 409 `wallet_changed`: the caller decided on a state that is gone.
 */
export async function writeWallet(
  models: Pick<Models, 'Wallet'>,
  userId: string,
  current: WalletRecord | null,
  changes: WalletChanges,
): Promise<WalletRecord> {
  if (current) {
    const done = await models.Wallet.updateOne(
      { _id: userId, version: current.version },
      { $set: changes, $inc: { version: 1 } },
    );
    if (done.modifiedCount === 0) throw walletChanged();
    return { ...current, ...changes, version: current.version + 1 };
  }
  try {
    const created = await models.Wallet.create({ _id: userId, ...changes, version: 1 });
    return created.toObject() as WalletRecord;
  } catch (err) {
    if (isDuplicateKey(err)) throw walletChanged();
    throw err;
  }
}

export const readWallet = async (models: Pick<Models, 'Wallet'>, userId: string) =>
  (await models.Wallet.findById(userId).lean()) as WalletRecord | null;
