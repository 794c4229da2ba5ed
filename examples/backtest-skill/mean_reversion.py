#!/usr/bin/env python3
"""Example skill for `simmer backtest`: buy YES below 0.40, sell it above 0.60 (see SKILL.md).

Uses only the official client. Under replay the harness sets SIMMER_API_URL to its local replay
server and SIMMER_API_KEY to a placeholder; live, they name this service and an agent key.
"""

import math
import os
import sys

from simmer_sdk import SimmerClient

BUY_BELOW = 0.40
SELL_ABOVE = 0.60
STAKE_USD = 25.0
SKILL_SLUG = "backtest-mean-reversion"
# Positions below this many shares are dust left by rounding, neither held nor sold.
MIN_SHARES = 0.01


def sellable(shares: float) -> float:
    """Shares rounded DOWN to the 5 decimals the client sends: rounded to nearest, a sale of all
    shares can ask for a hair more than is held, which the replay server (rightly) refuses."""
    return math.floor(shares * 100_000) / 100_000


def main() -> int:
    quiet = "--quiet" in sys.argv
    client = SimmerClient(api_key=os.environ["SIMMER_API_KEY"], venue="sim")
    # status=None: the replay server filters on nothing but q/sort/limit and refuses a status filter.
    markets = client.get_markets(status=None, limit=50)
    held = {p.market_id: p.shares_yes for p in client.get_positions() if p.shares_yes >= MIN_SHARES}
    bought = sold = 0
    for market in sorted(markets, key=lambda m: m.id):
        price = market.current_probability
        if price is None:
            continue
        if price < BUY_BELOW and market.id not in held:
            result = client.trade(
                market.id, "yes", amount=STAKE_USD, skill_slug=SKILL_SLUG, source=SKILL_SLUG,
                reasoning=f"YES at {price:.3f} < {BUY_BELOW}",
            )
            bought += bool(result.success)
        elif price > SELL_ABOVE and market.id in held:
            result = client.trade(
                market.id, "yes", action="sell", shares=sellable(held[market.id]), skill_slug=SKILL_SLUG,
                source=SKILL_SLUG, reasoning=f"YES at {price:.3f} > {SELL_ABOVE}",
            )
            sold += bool(result.success)
        else:
            continue
        if not result.success and not quiet:
            print(f"  {market.id}: {result.error}")
    if not quiet:
        print(f"{len(markets)} markets, {len(held)} held: bought {bought}, sold {sold}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
