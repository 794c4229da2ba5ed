// The emulated chain state of Polymarket accounts: pUSD (ERC-20) balances and allowances, CTF
// (ERC-1155) balances and setApprovalForAll operators, per address. It is the one source of truth
// for money: the CLOB checks and settles against it, the Data API derives positions from it, the
// admin API funds and approves through it, and a Polygon JSON-RPC stand-in can read and write the
// same instance (`state.ledger`). Amounts are bigint base units (6 decimals for pUSD and shares);
// addresses are case-insensitive. Errors carry revert-like messages so a JSON-RPC layer can pass
// them on.

export const UNIT = 1_000_000n;
export const MAX_UINT256 = 2n ** 256n - 1n;

export class LedgerError extends Error {}

const key = (address: string) => address.toLowerCase();
const operatorKey = (owner: string, collection?: string) =>
  collection === undefined ? key(owner) : `${key(collection)}:${key(owner)}`;

/** Human units (e.g. 12.5 pUSD) → base units, rounded to the 6th decimal. */
export function toUnits(amount: number): bigint {
  if (!Number.isFinite(amount)) throw new RangeError(`not a finite amount: ${amount}`);
  return BigInt(Math.round(amount * 1e6));
}

/** Base units → a decimal string without trailing zeros ("5.7", "10", "0.000001"). */
export function fromUnits(units: bigint): string {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const whole = abs / UNIT;
  const frac = (abs % UNIT).toString().padStart(6, '0').replace(/0+$/, '');
  return `${neg ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
}

/** Everything the ledger holds, copied: a relayer batch restores it when one of its calls reverts. */
export interface LedgerSnapshot {
  pusd: Map<string, bigint>;
  usdce: Map<string, bigint>;
  tokens: Map<string, Map<string, bigint>>;
  allowances: Map<string, Map<string, bigint>>;
  usdceAllowances: Map<string, Map<string, bigint>>;
  operators: Map<string, Set<string>>;
}

const copyNested = <V>(m: Map<string, Map<string, V>>) =>
  new Map([...m].map(([k, v]) => [k, new Map(v)] as const));

export class WalletLedger {
  private pusd = new Map<string, bigint>();
  /** USDC.e (ERC-20, 6 decimals): what a deposit wallet may hold before wrapping it into pUSD. */
  private usdce = new Map<string, bigint>();
  private tokens = new Map<string, Map<string, bigint>>();
  private allowances = new Map<string, Map<string, bigint>>();
  private usdceAllowances = new Map<string, Map<string, bigint>>();
  /** ERC-1155 operators per owner; CTF under the owner's key, other collections under `<collection>:<owner>`. */
  private operators = new Map<string, Set<string>>();

  reset(): void {
    this.pusd.clear();
    this.usdce.clear();
    this.tokens.clear();
    this.allowances.clear();
    this.usdceAllowances.clear();
    this.operators.clear();
  }

  snapshot(): LedgerSnapshot {
    return {
      pusd: new Map(this.pusd),
      usdce: new Map(this.usdce),
      tokens: copyNested(this.tokens),
      allowances: copyNested(this.allowances),
      usdceAllowances: copyNested(this.usdceAllowances),
      operators: new Map([...this.operators].map(([k, v]) => [k, new Set(v)] as const)),
    };
  }

  restore(s: LedgerSnapshot): void {
    this.pusd = s.pusd;
    this.usdce = s.usdce;
    this.tokens = s.tokens;
    this.allowances = s.allowances;
    this.usdceAllowances = s.usdceAllowances;
    this.operators = s.operators;
  }

  // ---- USDC.e (only what wrapping needs: balances, approve, the onramp's transferFrom) ----

  usdceBalance(owner: string): bigint {
    return this.usdce.get(key(owner)) ?? 0n;
  }

  mintUsdce(to: string, amount: bigint): void {
    this.usdce.set(key(to), this.usdceBalance(to) + amount);
  }

  usdceAllowance(owner: string, spender: string): bigint {
    return this.usdceAllowances.get(key(owner))?.get(key(spender)) ?? 0n;
  }

  approveUsdce(owner: string, spender: string, amount: bigint): void {
    const m = this.usdceAllowances.get(key(owner)) ?? new Map<string, bigint>();
    m.set(key(spender), amount);
    this.usdceAllowances.set(key(owner), m);
  }

  /** USDC.e `transfer` (no spender) or `transferFrom` by `spender`, spending allowance below the maximum. */
  transferUsdce(from: string, to: string, amount: bigint, spender?: string): void {
    if (spender !== undefined) {
      const allowed = this.usdceAllowance(from, spender);
      if (allowed < amount) throw new LedgerError('ERC20: insufficient allowance');
      if (allowed !== MAX_UINT256) this.approveUsdce(from, spender, allowed - amount);
    }
    const balance = this.usdceBalance(from);
    if (balance < amount) throw new LedgerError('ERC20: transfer amount exceeds balance');
    this.usdce.set(key(from), balance - amount);
    this.mintUsdce(to, amount);
  }

  // ---- reads (ERC-20 balanceOf/allowance, ERC-1155 balanceOf/isApprovedForAll) ----

  pusdBalance(owner: string): bigint {
    return this.pusd.get(key(owner)) ?? 0n;
  }

  tokenBalance(owner: string, tokenId: string): bigint {
    return this.tokens.get(key(owner))?.get(tokenId) ?? 0n;
  }

  /** Non-zero ERC-1155 balances of `owner`, token id → amount. */
  tokenBalances(owner: string): ReadonlyMap<string, bigint> {
    return new Map(this.tokens.get(key(owner)) ?? []);
  }

  allowance(owner: string, spender: string): bigint {
    return this.allowances.get(key(owner))?.get(key(spender)) ?? 0n;
  }

  isApprovedForAll(owner: string, operator: string, collection?: string): boolean {
    return this.operators.get(operatorKey(owner, collection))?.has(key(operator)) ?? false;
  }

  /** Every address that holds or has held something here (lower-case). */
  addresses(): string[] {
    return [...new Set([...this.pusd.keys(), ...this.tokens.keys(), ...this.allowances.keys()])];
  }

  // ---- writes ----

  setPusdBalance(owner: string, amount: bigint): void {
    if (amount < 0n) throw new LedgerError('negative balance');
    this.pusd.set(key(owner), amount);
  }

  setTokenBalance(owner: string, tokenId: string, amount: bigint): void {
    if (amount < 0n) throw new LedgerError('negative balance');
    const k = key(owner);
    const held = this.tokens.get(k) ?? new Map<string, bigint>();
    if (amount === 0n) held.delete(tokenId);
    else held.set(tokenId, amount);
    this.tokens.set(k, held);
  }

  mintPusd(to: string, amount: bigint): void {
    this.setPusdBalance(to, this.pusdBalance(to) + amount);
  }

  burnPusd(from: string, amount: bigint): void {
    const balance = this.pusdBalance(from);
    if (balance < amount) throw new LedgerError('ERC20: transfer amount exceeds balance');
    this.setPusdBalance(from, balance - amount);
  }

  mintTokens(to: string, tokenId: string, amount: bigint): void {
    this.setTokenBalance(to, tokenId, this.tokenBalance(to, tokenId) + amount);
  }

  burnTokens(from: string, tokenId: string, amount: bigint): void {
    const balance = this.tokenBalance(from, tokenId);
    if (balance < amount) throw new LedgerError('ERC1155: insufficient balance for transfer');
    this.setTokenBalance(from, tokenId, balance - amount);
  }

  /** ERC-20 `approve(spender, amount)` on pUSD, sent by `owner`. */
  approve(owner: string, spender: string, amount: bigint): void {
    const k = key(owner);
    const m = this.allowances.get(k) ?? new Map<string, bigint>();
    m.set(key(spender), amount);
    this.allowances.set(k, m);
  }

  /** ERC-1155 `setApprovalForAll(operator, approved)` on the CTF (or another `collection`), sent by `owner`. */
  setApprovalForAll(owner: string, operator: string, approved: boolean, collection?: string): void {
    const k = operatorKey(owner, collection);
    const s = this.operators.get(k) ?? new Set<string>();
    if (approved) s.add(key(operator));
    else s.delete(key(operator));
    this.operators.set(k, s);
  }

  /**
   * pUSD `transfer` (no spender) or `transferFrom` by `spender`, which spends allowance unless it
   * is the maximum (the "infinite approval" convention of OpenZeppelin ERC-20s).
   */
  transferPusd(from: string, to: string, amount: bigint, spender?: string): void {
    if (spender !== undefined) {
      const allowed = this.allowance(from, spender);
      if (allowed < amount) throw new LedgerError('ERC20: insufficient allowance');
      if (allowed !== MAX_UINT256) this.approve(from, spender, allowed - amount);
    }
    this.burnPusd(from, amount);
    this.mintPusd(to, amount);
  }

  /** CTF `safeTransferFrom`, by the owner or by an approved `operator`. */
  transferTokens(from: string, to: string, tokenId: string, amount: bigint, operator?: string): void {
    if (operator !== undefined && !this.isApprovedForAll(from, operator)) {
      throw new LedgerError('ERC1155: caller is not token owner or approved');
    }
    this.burnTokens(from, tokenId, amount);
    this.mintTokens(to, tokenId, amount);
  }
}
