import { JsonRpcProvider, Network } from 'ethers';
import { createWalletClient, custom, type WalletClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';

/** The clients that the venues' own libraries make, pointed at the emulated Polygon. */

export type ViemSigner = WalletClient & { account: { address: `0x${string}` } };

/** A fresh viem wallet (the signer type the official CLOB client documents); signing needs no RPC. */
export function newViemSigner(): ViemSigner {
  const account = privateKeyToAccount(generatePrivateKey());
  return createWalletClient({
    account,
    transport: custom({
      request: async () => {
        throw new Error('no JSON-RPC for order signing');
      },
    }),
  }) as ViemSigner;
}

/**
 * ethers v6 against the emulated Polygon JSON-RPC. A bare chain-137 network: ethers' built-in
 * "matic" network would fetch fees from the Polygon gas station on the internet. No response
 * cache: ethers reuses identical answers for 250 ms by default, and tests read right after each change.
 */
export function emulatedPolygonProvider(rpcUrl: string): JsonRpcProvider {
  const network = new Network('polygon-emulated', 137n);
  return new JsonRpcProvider(rpcUrl, network, {
    staticNetwork: network,
    pollingInterval: 20,
    cacheTimeout: -1,
  });
}
