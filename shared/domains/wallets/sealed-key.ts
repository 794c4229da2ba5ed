import { randomBytes } from 'node:crypto';
import { hexlify, Wallet as EthersWallet } from 'ethers';
import type { Env } from '../../infra/config/env.js';
import type { SealedSecret } from '../../infra/secrets/envelope.js';
import { secretBox } from '../../infra/secrets/master-key.js';

type BoxEnv = Pick<Env, 'DATA_DIR' | 'SECRETS_MASTER_KEY'>;

/** A private key the service holds, sealed at rest under a context naming the record it belongs to. */
export interface SealedKey {
  /** The key's address, checksummed. */
  address: string;
  key: SealedSecret;
}

/**
 * A fresh secp256k1 key, sealed: `contextOf(address)` binds it to its record (the context carries
 * the address, so it is known only once the key is made). The signer stays in memory only.
 */
export function newSealedKey(env: BoxEnv, contextOf: (address: string) => string) {
  const signer = new EthersWallet(hexlify(randomBytes(32)));
  const sealed: SealedKey = {
    address: signer.address,
    key: secretBox(env).seal(signer.privateKey, contextOf(signer.address)),
  };
  return { signer, sealed };
}

/** The signer of a sealed key (an ethers v6 Wallet, in memory only); `what` names it in the mismatch error. */
export function openSealedKey(env: BoxEnv, sealed: SealedKey, context: string, what: string): EthersWallet {
  const signer = new EthersWallet(secretBox(env).openString(sealed.key, context));
  if (signer.address !== sealed.address) throw new Error(`${what}: key does not match its address`);
  return signer;
}
