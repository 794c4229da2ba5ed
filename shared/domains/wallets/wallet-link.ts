import type { InfraDeps } from '../../infra/infra-deps.js';
import type { Models } from '../models.js';
import { getAddress, verifyMessage } from 'ethers';
import { AppError, invalidField } from '../../infra/errors.js';
import { walletUserOf, type WalletAccount } from './wallet-account.js';
import { consumeChallenge, issueChallenge, type WalletChallenge } from './wallet-challenge.js';
import type { WalletRecord } from './wallet.model.js';
import type { WalletLinkRequest } from './wallet.schemas.js';
import { readWallet, writeWallet } from './wallet-store.js';
import { walletFieldsOf } from './wallet-view.js';
import type { WalletCredentials } from './wallet-credentials.js';

/** What this module's functions use of the process (the composition root's Deps has all of it). */
export type WalletLinkDeps = Pick<InfraDeps, 'env' | 'redis' | 'clock'> & { models: Models };

type LinkDeps = Pick<WalletLinkDeps, 'models' | 'env' | 'redis' | 'clock'>;
/** Linking and unlinking also report and drop the venue's credentials of the wallet. */
type LinkingDeps = LinkDeps & { walletCredentials: WalletCredentials };

const SIGNATURE_TYPE_NAMES = ['EOA', 'Polymarket proxy wallet', 'Gnosis Safe', 'deposit wallet'] as const;

const freshChallengeFix = (address: string) =>
  `Get a fresh challenge (GET /api/sdk/wallet/link/challenge?address=${address}), sign its message with that wallet and send the link within 5 minutes.`;

/** `GET /api/sdk/wallet/link/challenge` (5 per hour per account, enforced by the route's rate limit). */
export async function walletLinkChallenge(deps: LinkDeps, account: WalletAccount, address: string) {
  walletUserOf(account);
  return issueChallenge(deps, account.owner.key, getAddress(address));
}

/**
 * The deposit wallet of a signing EOA (signature type 3): derived from the EOA by the venue's wallet
 * factory (CREATE2), so a link can name no other. Passed in by the caller, which reaches the venue.
 */
export type DepositWalletOf = (owner: string) => string;

/** Signature type 3 trades through the EOA's deposit wallet: the one its factory derives, never another. */
function checkDepositWallet(
  input: WalletLinkRequest,
  address: string,
  depositWalletOf: DepositWalletOf,
): string | null {
  const given = input.deposit_wallet_address ? getAddress(input.deposit_wallet_address) : null;
  if (input.signature_type !== 3) {
    if (given)
      throw invalidField(
        'deposit_wallet_address',
        'only with signature_type 3',
        input.deposit_wallet_address,
        'Send deposit_wallet_address with signature_type 3 (deposit wallet), or leave it out.',
      );
    return null;
  }
  const derived = depositWalletOf(address);
  if (!given)
    throw invalidField(
      'deposit_wallet_address',
      'required with signature_type 3',
      null,
      `Send the deposit wallet of the signing EOA with signature_type 3: for ${address} it is ${derived}.`,
    );
  if (given !== derived)
    throw invalidField(
      'deposit_wallet_address',
      `is not the deposit wallet of ${address}`,
      input.deposit_wallet_address,
      `The deposit wallet of ${address} is ${derived} (derived by Polymarket's deposit wallet factory): send that, ` +
        'or link the EOA that owns the deposit wallet you meant, or use signature_type 0 for a plain EOA.',
    );
  return given;
}

/** Spec §2.5's confirm flags, checked before the nonce is spent, so a refused link can be resent with the flag. */
function checkConfirmations(current: WalletRecord | null, address: string, input: WalletLinkRequest) {
  if (!current?.address) return;
  const replacesManaged = current.ownership === 'managed' && current.address !== address;
  if (replacesManaged && !input.confirm_replace_managed)
    throw new AppError(
      409,
      'confirm_replace_managed_required',
      `Linking ${address} would replace your managed wallet ${current.address} as your trading wallet`,
      'Send the same link again with "confirm_replace_managed": true to trade from the external wallet. The managed wallet and its funds are kept; unlinking the external wallet (POST /api/sdk/wallet/unlink) switches back to it.',
      { body: { wallet_address: current.address, wallet_ownership: 'native' } },
    );
  const orphans =
    current.ownership === 'external' &&
    current.signatureType === 3 &&
    current.depositWallet !== null &&
    current.address !== address;
  if (orphans && !input.confirm_orphan_deposit_wallet)
    throw new AppError(
      409,
      'confirm_orphan_deposit_wallet_required',
      `Linking ${address} would strand your deposit wallet ${current.depositWallet}, which belongs to ${current.address}`,
      'Move funds and positions out of the deposit wallet first, or send the same link again with "confirm_orphan_deposit_wallet": true to go ahead.',
      { body: { deposit_wallet_address: current.depositWallet, wallet_address: current.address } },
    );
}

/**
 * The challenge behind `nonce`, if it may be answered by the account `accountKey` for this address
 * now; `fix` says how to get a fresh one.
 */
export async function takeChallenge(
  deps: Pick<LinkDeps, 'env' | 'redis' | 'clock'>,
  accountKey: string,
  nonce: string,
  address: string,
  fix = freshChallengeFix(address),
): Promise<WalletChallenge> {
  const taken = await consumeChallenge(deps, nonce);
  if (taken.state === 'used')
    throw new AppError(400, 'challenge_used', 'This wallet link nonce has already been used', fix);
  if (taken.state === 'unknown' || taken.challenge.account !== accountKey)
    throw new AppError(400, 'challenge_not_found', 'Unknown or expired wallet link nonce', fix);
  const { challenge } = taken;
  if (Date.parse(challenge.expiresAt) <= deps.clock().getTime())
    throw new AppError(
      400,
      'challenge_expired',
      `The wallet link challenge expired at ${challenge.expiresAt}`,
      fix,
    );
  if (challenge.address !== address)
    throw new AppError(
      400,
      'address_mismatch',
      `The challenge was issued for ${challenge.address}, not ${address}`,
      fix,
    );
  return challenge;
}

/** Who signed `message`; an unreadable signature is a refusal, not an error. */
function signerOf(message: string, signature: string, address: string): string {
  try {
    return verifyMessage(message, signature.startsWith('0x') ? signature : `0x${signature}`);
  } catch {
    throw new AppError(
      400,
      'invalid_signature',
      'The signature is not a valid EIP-191 signature',
      `Sign the challenge's message with personal_sign (EIP-191) using the key of ${address} and send the 65-byte signature as hex.`,
    );
  }
}

async function linkedElsewhere(deps: LinkDeps, userId: string, address: string) {
  const holders = await deps.models.Wallet.find({ address }, { _id: 1 }).lean();
  return holders.some((w) => w._id !== userId);
}

/**
 * Whether a deposit wallet is an address another account trades with: its wallet, its managed key,
 * its deposit wallet, or an agent wallet. The address is the signer's derived deposit wallet
 * (checkDepositWallet), so this only guards against records written before that check: naming
 * another account's wallet would make its positions look like the linker's (redemption scopes).
 */
async function depositWalletInUse(deps: LinkDeps, userId: string, depositWallet: string) {
  const [wallets, agentWallet] = await Promise.all([
    deps.models.Wallet.find(
      { $or: [{ address: depositWallet }, { depositWallet }, { 'managed.address': depositWallet }] },
      { _id: 1 },
    ).lean(),
    deps.models.AgentWallet.exists({ address: depositWallet }),
  ]);
  return !!agentWallet || wallets.some((w) => w._id !== userId);
}

/**
 * `POST /api/sdk/wallet/link`: proves the caller controls `address` (EIP-191 signature over a
 * single-use challenge issued to this account for this address) and makes it the account's trading
 * wallet. 3 attempts per day per account (the route's rate limit).
 */
export async function linkWallet(
  deps: LinkingDeps,
  account: WalletAccount,
  input: WalletLinkRequest,
  depositWalletOf: DepositWalletOf,
) {
  const userId = walletUserOf(account);
  const address = getAddress(input.address);
  const depositWallet = checkDepositWallet(input, address, depositWalletOf);
  const current = await readWallet(deps.models, userId);
  checkConfirmations(current, address, input);

  const challenge = await takeChallenge(deps, account.owner.key, input.nonce, address);
  const signer = signerOf(challenge.message, input.signature, address);
  if (signer !== address)
    throw new AppError(
      400,
      'signature_mismatch',
      `Signature does not match address: the message was signed by ${signer}, not ${address}`,
      `Sign the challenge's message exactly as returned, with the key of ${address}. ${freshChallengeFix(address)}`,
    );
  if (await linkedElsewhere(deps, userId, address))
    throw new AppError(
      409,
      'wallet_linked_elsewhere',
      `Wallet ${address} is linked to another account`,
      'Unlink it from the other account first (POST /api/sdk/wallet/unlink there), or link a different wallet.',
    );
  if (depositWallet && (await depositWalletInUse(deps, userId, depositWallet)))
    throw new AppError(
      409,
      'deposit_wallet_in_use',
      `Deposit wallet ${depositWallet} is a wallet another account trades with`,
      'Send the address of the deposit wallet your signing EOA owns (the maker of your orders); an address in use by another account cannot be linked as yours.',
    );

  const wallet = await writeWallet(deps.models, userId, current, {
    address,
    ownership: 'external',
    signatureType: input.signature_type,
    depositWallet,
    linkedAt: deps.clock(),
  });
  const orphaned =
    current?.depositWallet && current.depositWallet !== depositWallet ? current.depositWallet : null;
  return {
    success: true as const,
    ...walletFieldsOf(wallet),
    signature_type: input.signature_type,
    has_credentials: await deps.walletCredentials.has(account.owner),
    message:
      `Wallet ${address} linked (signature type ${input.signature_type}, ${SIGNATURE_TYPE_NAMES[input.signature_type]}).` +
      (orphaned ? ` Deposit wallet ${orphaned} is no longer used.` : ''),
  };
}

/**
 * `POST /api/sdk/wallet/unlink`: forgets the external wallet and its CLOB credentials. The managed
 * wallet, when the account has one, becomes the trading wallet again (its key is never deleted: it
 * may hold funds). Idempotent: nothing linked is a success that changes nothing.
 */
export async function unlinkWallet(deps: LinkingDeps, account: WalletAccount) {
  const userId = walletUserOf(account);
  const current = await readWallet(deps.models, userId);
  if (!current || current.ownership !== 'external' || !current.address)
    return {
      success: true as const,
      unlinked: false,
      ...walletFieldsOf(current),
      message: 'No external wallet is linked; nothing changed.',
    };
  const managed = current.managed;
  const wallet = await writeWallet(deps.models, userId, current, {
    address: managed?.address ?? null,
    ownership: managed ? 'managed' : null,
    signatureType: managed ? 0 : null,
    depositWallet: null,
    linkedAt: managed ? deps.clock() : null,
  });
  await deps.walletCredentials.forget(userId, current.address);
  return {
    success: true as const,
    unlinked: true,
    ...walletFieldsOf(wallet),
    message: managed
      ? `Wallet ${current.address} unlinked; your managed wallet ${managed.address} is your trading wallet again.`
      : `Wallet ${current.address} unlinked; link a wallet again before trading on Polymarket.`,
  };
}
