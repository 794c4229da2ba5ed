import assert from 'node:assert/strict';
import { Interface, Wallet, ZeroHash, hexlify, id, randomBytes, type EventFragment } from 'ethers';
import { POLYGON_CONTRACTS as C } from '../../shared/domains/venues/polymarket/onchain/polygon-contracts.js';
import type { PolygonRpc } from '../../shared/domains/venues/polymarket/onchain/polygon-rpc.js';
import {
  provenPayouts,
  verifyRedemptionReceipt,
} from '../../shared/domains/venues/polymarket/onchain/redemption-receipt.js';

// The events a redemption receipt is read from, written here independently of the module under
// test, with the topic hashes third-party indexers publish for the deployed contracts.
const CTF = new Interface([
  'event PayoutRedemption(address indexed redeemer, address indexed collateralToken, bytes32 indexed parentCollectionId, bytes32 conditionId, uint256[] indexSets, uint256 payout)',
]);
const NEG_RISK = new Interface([
  'event PayoutRedemption(address indexed redeemer, bytes32 indexed conditionId, uint256[] amounts, uint256 payout)',
]);
const PUSD = new Interface([
  'event Wrapped(address indexed caller, address indexed asset, address indexed to, uint256 amount)',
]);

/** The one event of `iface`, emitted by `address`, as a receipt log. */
const log = (iface: Interface, address: string, args: unknown[]) => {
  const { topics, data } = iface.encodeEventLog((iface.fragments[0] as EventFragment).name, args);
  return { address: address.toLowerCase(), topics, data };
};

const holder = Wallet.createRandom().address;
const other = Wallet.createRandom().address;
const condition = hexlify(randomBytes(32));

describe('What a redemption receipt proves (redemption-receipt.ts)', () => {
  it('when the events are encoded from their signatures, then their topics are the ones the deployed contracts emit', () => {
    assert.equal(
      CTF.getEvent('PayoutRedemption')!.topicHash,
      '0x2682012a4a4f1973119f1c9b90745d1bd91fa2bab387344f044cb3586864d18d',
    );
    assert.equal(
      NEG_RISK.getEvent('PayoutRedemption')!.topicHash,
      '0x9140a6a270ef945260c03894b3c6b3b2695e9d5101feef0ff24fec960cfd3224',
    );
    assert.equal(PUSD.getEvent('Wrapped')!.topicHash, id('Wrapped(address,address,address,uint256)'));
  });

  it('when a collateral adapter redeems, then the holder is the one pUSD is wrapped for, not the adapter the PayoutRedemption names', () => {
    const logs = [
      log(CTF, C.ctf, [C.ctfCollateralAdapter, C.usdcBridged, ZeroHash, condition, [1, 2], 7_000_000n]),
      log(PUSD, C.pusd, [C.ctfCollateralAdapter, C.usdcBridged, holder, 7_000_000n]),
      log(NEG_RISK, C.negRiskAdapter, [C.negRiskCtfCollateralAdapter, condition, [1n, 2n], 3_000_000n]),
      log(PUSD, C.pusd, [C.negRiskCtfCollateralAdapter, C.usdcBridged, other, 3_000_000n]),
    ];
    assert.deepEqual(provenPayouts(logs), [
      { holder: holder.toLowerCase(), conditionId: condition, payoutMicro: 7_000_000 },
      { holder: other.toLowerCase(), conditionId: condition, payoutMicro: 3_000_000 },
    ]);
  });

  it('when a legacy redemption is sent to the CTF or the NegRiskAdapter, then its PayoutRedemption names the holder', () => {
    const logs = [
      log(CTF, C.ctf, [holder, C.usdcBridged, ZeroHash, condition, [1, 2], 5n]),
      log(NEG_RISK, C.negRiskAdapter, [holder, condition, [5n, 0n], 6n]),
    ];
    assert.deepEqual(
      provenPayouts(logs).map((p) => p.payoutMicro),
      [5, 6],
    );
  });

  it('when the events come from other addresses, name another collateral, or an adapter is never wrapped for, then they prove nothing', () => {
    const fake = Wallet.createRandom().address;
    const logs = [
      // Look-alike events from a contract of anyone's.
      log(CTF, fake, [holder, C.usdcBridged, ZeroHash, condition, [1, 2], 9n]),
      log(NEG_RISK, fake, [holder, condition, [9n, 0n], 9n]),
      // The NegRiskAdapter's own inner CTF redemption (wrapped collateral): not a payout to anyone.
      log(CTF, C.ctf, [C.negRiskAdapter, fake, ZeroHash, condition, [1, 2], 9n]),
      // An adapter redemption with no Wrapped after it, and a Wrapped by someone else.
      log(CTF, C.ctf, [C.ctfCollateralAdapter, C.usdcBridged, ZeroHash, condition, [1, 2], 9n]),
      log(PUSD, C.pusd, [fake, C.usdcBridged, holder, 9n]),
      log(PUSD, fake, [C.ctfCollateralAdapter, C.usdcBridged, holder, 9n]),
    ];
    assert.deepEqual(provenPayouts(logs), []);
  });

  it('when more is wrapped than the redemption paid, then only the payout counts', () => {
    const logs = [
      log(CTF, C.ctf, [C.ctfCollateralAdapter, C.usdcBridged, ZeroHash, condition, [1, 2], 2n]),
      log(PUSD, C.pusd, [C.ctfCollateralAdapter, C.usdcBridged, holder, 10n]),
    ];
    assert.equal(provenPayouts(logs)[0]!.payoutMicro, 2);
  });

  it('when a receipt paid the holders at least what their positions are owed, then it proves a complete redemption whatever the wallet holds now; less is partial', async () => {
    const logs = [
      log(CTF, C.ctf, [C.ctfCollateralAdapter, C.usdcBridged, ZeroHash, condition, [1, 2], 7_000_000n]),
      log(PUSD, C.pusd, [C.ctfCollateralAdapter, C.usdcBridged, holder, 7_000_000n]),
    ];
    // A node that answers the receipt and nothing else: no balance is read, so tokens sent to
    // the wallet after the redemption (or bought since) cannot change the verdict.
    const polygon = {
      send: async (method: string) => {
        assert.equal(method, 'eth_getTransactionReceipt');
        return { result: { status: '0x1', blockNumber: '0x10', logs } };
      },
    } as unknown as PolygonRpc;
    const asked: string[][] = [];
    const verdict = (owed: number) =>
      verifyRedemptionReceipt({ polygon }, '0x' + 'ab'.repeat(32), {
        conditionId: condition,
        holders: [holder, other],
        owedMicro: async (proven) => {
          asked.push(proven);
          return owed;
        },
      });
    // The holder held more than the account's positions: paid more than they are owed, complete.
    assert.deepEqual(await verdict(5_000_000), {
      proven: true,
      holders: [holder.toLowerCase()],
      payoutMicro: 7_000_000,
    });
    assert.deepEqual(await verdict(7_000_000), {
      proven: true,
      holders: [holder.toLowerCase()],
      payoutMicro: 7_000_000,
    });
    assert.deepEqual(await verdict(7_000_001), { proven: false, reason: 'partial' });
    assert.deepEqual(asked[0], [holder.toLowerCase()], 'owed asked for the holders it paid only');
  });
});
