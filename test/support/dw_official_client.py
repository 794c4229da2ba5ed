"""The deposit-wallet path driven by the official Python client (simmer-sdk), unmodified.

Run by test/integration/deposit-wallet-official-client.test.ts in two phases, with the service at
SIMMER_API_URL and the Polymarket emulator's control plane at EMULATOR_ADMIN_URL:

  setup   import_polymarket_wallet() (link + upgrade + activate_polymarket_dw), USDC.e sent to the
          deposit wallet, wrap_on_dw(), then a buy the client signs as signature type 3
  redeem  redeem() of the resolved market (the client's dw-redeem prepare/sign/submit path)

Each step prints one JSON line {"step", "call", "answer"} so the test (and a closing note) can show it.
"""

import dataclasses
import json
import os
import sys

import requests
from simmer_sdk import SimmerClient


def show(step, call, answer):
    if dataclasses.is_dataclass(answer):
        answer = dataclasses.asdict(answer)
    print(json.dumps({"step": step, "call": call, "answer": answer}, default=str), flush=True)


def new_client():
    return SimmerClient(
        api_key=os.environ["SIMMER_API_KEY"],
        base_url=os.environ["SIMMER_API_URL"],
        venue="polymarket",
        private_key=os.environ["WALLET_PRIVATE_KEY"],
        live=True,
    )


def main():
    phase = sys.argv[1]
    market_id = os.environ["MARKET_ID"]
    client = new_client()
    if phase == "setup":
        imported = client.import_polymarket_wallet()
        show("import_polymarket_wallet", "client.import_polymarket_wallet()", imported)
        if not imported.get("clob_credentials_registered"):
            # Offline, the client's own derivation (py_clob_client against clob.polymarket.com) cannot
            # reach Polymarket, and its proxy fallback fails inside the client (Signer(key=...) on
            # py-clob-client 0.34.6). Do what it does when Polymarket is reachable: derive with the
            # same library, against the emulated CLOB, and register them.
            from py_clob_client.client import ClobClient

            derived = ClobClient(
                host=os.environ["CLOB_URL"],
                key=os.environ["WALLET_PRIVATE_KEY"],
                chain_id=137,
                signature_type=0,
                funder=imported["wallet_address"],
            ).create_or_derive_api_creds()
            registered = client._request(
                "POST",
                "/api/sdk/wallet/credentials",
                json={
                    "api_key": derived.api_key,
                    "api_secret": derived.api_secret,
                    "api_passphrase": derived.api_passphrase,
                },
            )
            show("clob credentials", "POST /api/sdk/wallet/credentials (derived against the emulated CLOB)", registered)
        dw = imported["deposit_wallet_address"]
        funded = requests.post(
            f"{os.environ['EMULATOR_ADMIN_URL']}/wallets/{dw}/fund", json={"usdce": 50}, timeout=10
        ).json()
        show("fund", f"(emulator) 50 USDC.e sent to {dw}", {"usdce": funded.get("usdce")})
        show("wrap_on_dw", "client.wrap_on_dw()", client.wrap_on_dw())
        # A new session, as the agent's next run: the client caches the wallet's routing flags
        # (wallet_uses_deposit_wallet) per session, read before the upgrade in this one.
        trade = new_client().trade(market_id, "yes", 10.0, venue="polymarket", order_type="FAK", price=0.6)
        show("trade", f"client.trade({market_id!r}, 'yes', 10.0, venue='polymarket')", trade)
    elif phase == "redeem":
        show("redeem", f"client.redeem({market_id!r}, 'yes')", client.redeem(market_id, "yes"))
    else:
        raise SystemExit(f"unknown phase {phase}")


if __name__ == "__main__":
    main()
