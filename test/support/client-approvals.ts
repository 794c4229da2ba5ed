import { Interface, MaxUint256 } from 'ethers';

/**
 * The twelve approvals the official client's `set_approvals()` signs (issue 26 item 1), written
 * out from the issue's own list rather than from the service's constants, so that a drift of our
 * allow-list or required set away from the client fails a test.
 */

export const CLIENT_PUSD = '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB';
export const CLIENT_CTF = '0x4D97DCd97eC945f40cF65F87097ACe5EA0476045';

export const CLIENT_SPENDERS = {
  ctfExchangeV2: '0xE111180000d2663C0091e4f400237545B87B996B',
  negRiskExchangeA: '0xe2222d279d744050d28e00520010520000310F59',
  negRiskExchangeB: '0xe2222d002000Ba0053CEF3375333610F64600036',
  negRiskAdapter: '0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296',
  feeEscrowV2: '0x3A43D88ef8Aae4dF5a50B3abf67122CAAeEF7c9F',
  ctfCollateralAdapter: '0xAdA100Db00Ca00073811820692005400218FcE1f',
  negRiskCtfCollateralAdapter: '0xadA2005600Dec949baf300f4C6120000bDB6eAab',
} as const;

const S = CLIENT_SPENDERS;
const PUSD_SPENDERS = [
  S.ctfExchangeV2,
  S.negRiskExchangeA,
  S.negRiskExchangeB,
  S.negRiskAdapter,
  S.feeEscrowV2,
  S.ctfCollateralAdapter,
];
const CTF_OPERATORS = [
  S.ctfExchangeV2,
  S.negRiskExchangeA,
  S.negRiskExchangeB,
  S.negRiskAdapter,
  S.ctfCollateralAdapter,
  S.negRiskCtfCollateralAdapter,
];

const ABI = new Interface(['function approve(address,uint256)', 'function setApprovalForAll(address,bool)']);

export interface ClientApproval {
  /** The allowances map key the service reports it under. */
  key: string;
  to: string;
  data: string;
}

export const CLIENT_APPROVALS: readonly ClientApproval[] = [
  ...PUSD_SPENDERS.map((s) => ({
    key: `pusd_${s.toLowerCase()}`,
    to: CLIENT_PUSD,
    data: ABI.encodeFunctionData('approve', [s, MaxUint256]),
  })),
  ...CTF_OPERATORS.map((s) => ({
    key: `ctf_${s.toLowerCase()}`,
    to: CLIENT_CTF,
    data: ABI.encodeFunctionData('setApprovalForAll', [s, true]),
  })),
];
