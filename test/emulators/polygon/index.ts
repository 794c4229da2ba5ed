// Polygon JSON-RPC stand-in (chain id 137) for the Polymarket emulator: it is mounted on the same
// server, at `<base>/polygon` (RPC) and `<base>/__admin/polygon` (control plane), over the same
// PolymarketState, so an approval mined here is an allowance the emulated CLOB honours and a
// redemption pays out from the ledger the CLOB settles against. See ../polymarket/TRADING.md.
// No production module may import this.

export {
  PolygonChain,
  RpcError,
  CHAIN_ID,
  MINING_MODES,
  type MiningMode,
  type TxRecord,
} from './chain-state.js';
export { polygonRpcRouter } from './rpc-server.js';
export { polygonAdminRouter } from './admin.js';
export { USDC_E, payouts, planCall } from './tx-effects.js';
export { COLLATERAL_TOKEN, CTF, ERC20, NEG_RISK_ADAPTER } from './abi.js';
