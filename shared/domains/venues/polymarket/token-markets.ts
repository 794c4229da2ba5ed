import { LocalCache } from '../../../infra/local-cache.js';
import type { FillMarket } from '../venue-fill.js';
import type { GammaMarket } from './gamma.schemas.js';

/**
 * CLOB token id → the market it is an outcome of, as fills name only the token. Asked from Gamma
 * (`GET /markets?clob_token_ids=`) in batches and cached: a token's market never changes, so a
 * known one stays until evicted; a token Gamma does not know (yet) is asked again after a minute.
 */

/** One outcome token's market, and which of the market's outcomes it is. */
export interface TokenMarket {
  market: Omit<FillMarket, 'outcomeLabel'>;
  outcome: 'yes' | 'no';
  outcomeLabel: string | null;
}

/** Gamma's markets holding any of these tokens, open (`closed: false`) or closed ones. */
export type GammaByTokens = (tokenIds: string[], closed: boolean) => Promise<GammaMarket[]>;

const CACHED_TOKENS = 50_000;
const KNOWN_MAX_AGE_MS = 24 * 3600_000;
const UNKNOWN_RETRY_MS = 60_000;
/** Token ids are ~77 digits: 100 of them stay well under Gamma's ~8 KB URL limit (reference §2.1). */
const TOKENS_PER_CALL = 100;

export class TokenMarkets {
  private readonly cache = new LocalCache<TokenMarket | 'unknown'>(CACHED_TOKENS, () => KNOWN_MAX_AGE_MS);

  constructor(private readonly gammaByTokens: GammaByTokens) {}

  /** The market of each token Gamma knows; unknown tokens are absent. A Gamma failure throws. */
  async resolve(tokenIds: readonly string[]): Promise<Map<string, TokenMarket>> {
    const found = new Map<string, TokenMarket>();
    const missing: string[] = [];
    for (const token of new Set(tokenIds)) {
      const hit = this.cache.get(token);
      if (hit === undefined) missing.push(token);
      else if (hit !== 'unknown') found.set(token, hit);
    }
    for (let i = 0; i < missing.length; i += TOKENS_PER_CALL) {
      let ask = missing.slice(i, i + TOKENS_PER_CALL);
      // Gamma's list hides closed markets unless asked, and one call cannot ask for both.
      for (const closed of [false, true]) {
        if (ask.length === 0) break;
        for (const m of await this.gammaByTokens(ask, closed)) this.remember(m, found);
        ask = ask.filter((t) => !found.has(t));
      }
      const retryAt = performance.now() + UNKNOWN_RETRY_MS;
      for (const token of ask) this.cache.set(token, 'unknown', retryAt);
    }
    return found;
  }

  private remember(m: GammaMarket, found: Map<string, TokenMarket>): void {
    const tokens = m.clobTokenIds ?? [];
    if (!m.conditionId || tokens.length !== 2) return;
    const market = {
      externalId: m.conditionId.toLowerCase(),
      yesTokenId: tokens[0] ?? null,
      noTokenId: tokens[1] ?? null,
      title: m.question || null,
      slug: m.slug || null,
    };
    tokens.forEach((token, i) => {
      const entry: TokenMarket = {
        market,
        outcome: i === 0 ? 'yes' : 'no',
        outcomeLabel: m.outcomes[i] ?? null,
      };
      this.cache.set(token, entry);
      found.set(token, entry);
    });
  }
}
