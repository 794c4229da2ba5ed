import assert from 'node:assert/strict';
import { JsonRpcProvider, Network } from 'ethers';
import { createWalletClient, custom, type WalletClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { startPolymarketEmulator, type PolymarketEmulator } from '../emulators/polymarket/index.js';

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

/** What `useEmulatedPolygon`'s `before` sets up. */
export interface EmulatedPolygon {
  /** The Polymarket emulator, whose ledger the emulated Polygon shares. */
  emu: PolymarketEmulator;
  /** ethers v6 against its JSON-RPC (emulatedPolygonProvider). */
  provider: JsonRpcProvider;
}

/**
 * The hooks of a suite that drives the emulated chain itself: `before` starts a Polymarket emulator
 * of the suite's own with an ethers provider on its Polygon JSON-RPC, `after` stops both, and
 * `beforeEach` resets it (the chain with the CLOB: they share one ledger), so each test starts from
 * a fresh chain. Call it inside the `describe`; the object answered is filled in by `before`.
 */
export function useEmulatedPolygon(): EmulatedPolygon {
  const chain = {} as EmulatedPolygon;
  before(async () => {
    chain.emu = await startPolymarketEmulator();
    chain.provider = emulatedPolygonProvider(chain.emu.rpcUrl);
  });
  after(async () => {
    chain.provider.destroy();
    await chain.emu.close();
  });
  beforeEach(async () => {
    const res = await fetch(`${chain.emu.adminUrl}/reset`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(res.status, 200, `admin /reset: ${res.status} ${await res.text()}`);
  });
  return chain;
}
