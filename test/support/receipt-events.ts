import { getAddress, type Interface, type Log } from 'ethers';
import { COLLATERAL_TOKEN, CTF, ERC20, NEG_RISK_ADAPTER } from '../emulators/polygon/index.js';
import { CONTRACTS } from '../emulators/polymarket/index.js';

/** What each contract's logs decode against (pUSD is an ERC-20 and Polymarket's CollateralToken). */
const EVENT_ABIS: Record<string, Interface[]> = {
  [CONTRACTS.ctf]: [CTF],
  [CONTRACTS.pusd]: [ERC20, COLLATERAL_TOKEN],
  [CONTRACTS.usdcE]: [ERC20],
  [CONTRACTS.negRiskAdapter]: [NEG_RISK_ADAPTER],
};

/** A receipt's logs as [contract, event, args], decoded against the contract that wrote each. */
export function eventsOf(receipt: { logs: readonly Log[] }): [string, string, unknown[]][] {
  return receipt.logs.map((log) => {
    const address = getAddress(log.address);
    for (const iface of EVENT_ABIS[address] ?? []) {
      const parsed = iface.parseLog(log);
      if (parsed) return [address, parsed.name, parsed.args.toArray(true)];
    }
    return [address, 'unknown', [...log.topics]];
  });
}
