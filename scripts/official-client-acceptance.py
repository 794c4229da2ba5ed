"""Issue 26's acceptance with the official Python client (simmer-sdk 0.26.0) and a new EVM key.

Run against a service started as `VENUES=emulated WEBHOOK_ALLOW_LOOPBACK=true npm start`, with the
Python of the client's venv (`npm test` installs it into .cache/simmer-sdk-venv):

    .cache/simmer-sdk-venv/bin/python scripts/official-client-acceptance.py \
        --base-url http://localhost:8080 --data-dir ./data [--all-methods] [--json-out result.json]

It does what a new user does, through the client wherever the client has a method for it:
registers an agent, claims it as its human (a user token signed with the service's development
JWT secret in DATA_DIR, as `npm run token` signs one) and turns real trading on; funds the new
wallet with pUSD and POL on the Polymarket emulator (the emulator's address comes from
GET /api/admin/venues with the operator token in DATA_DIR); then `link_wallet()`,
`set_approvals()`, `check_approvals()`, `ensure_can_trade()`, a buy on Polymarket signed by the
client and one on sim, `set_monitor()` / `list_monitors()` / `delete_monitor()` on the sim
position, and `update_settings(clawdbot_webhook_url=...)` pointing at a receiver this script runs
on 127.0.0.1 (hence WEBHOOK_ALLOW_LOOPBACK on the service), which must then see a signed delivery.
With --all-methods it goes on through the client's other public methods and tabulates which work.

Each call is printed as `> method(args)` with a compact answer under it. The client's direct calls
to Polymarket's own hosts (it derives CLOB credentials at clob.polymarket.com first) are sent to a
closed local proxy, so that the run is offline and the client takes its documented fallback
through the service (`/api/sdk/wallet/credentials/derive-via-proxy`), as it does where Polymarket
is unreachable. Exit code 0 when every acceptance check held, 1 otherwise.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import hmac
import http.server
import json
import os
import secrets
import sys
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Callable

# Before the client and its HTTP libraries are imported: anything but the loopback service goes to
# a closed port (see the module docstring).
os.environ["HTTPS_PROXY"] = os.environ["https_proxy"] = "http://127.0.0.1:9"
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost,::1"
os.environ.pop("WALLET_PRIVATE_KEY", None)
os.environ.pop("SIMMER_PRIVATE_KEY", None)
os.environ.pop("OWS_WALLET", None)

import requests  # noqa: E402
from eth_account import Account  # noqa: E402

import simmer_sdk  # noqa: E402
from simmer_sdk import SimmerClient  # noqa: E402

# ------------------------------------------------------------------------------------------------
# Printing


def compact(value: Any, limit: int = 400) -> str:
    """One line of JSON, cut at `limit` characters."""
    try:
        # A client object is shown by its repr: its __dict__ holds the API key and the private key.
        text = json.dumps(value, default=lambda o: repr(o) if isinstance(o, SimmerClient)
                          else getattr(o, "__dict__", str(o)), sort_keys=False)
    except Exception:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def pick(d: Any, *keys: str) -> dict:
    if not isinstance(d, dict):
        d = getattr(d, "__dict__", {}) or {}
    return {k: d.get(k) for k in keys if k in d}


class Run:
    """Calls, their answers and the acceptance checks, printed as they happen."""

    def __init__(self) -> None:
        self.checks: list[dict] = []
        self.methods: dict[str, dict] = {}

    def call(self, label: str, fn: Callable[[], Any], show: Callable[[Any], Any] | None = None,
             method: str | None = None) -> Any:
        print(f"> {label}", flush=True)
        try:
            answer = fn()
        except requests.HTTPError as e:
            body = e.response.text if e.response is not None else ""
            status = e.response.status_code if e.response is not None else None
            print(f"  ! HTTP {status}: {body[:400]}", flush=True)
            if method:
                self.methods[method] = {"ok": False, "error": f"HTTP {status}: {body[:300]}"}
            raise
        except Exception as e:
            print(f"  ! {type(e).__name__}: {str(e)[:400]}", flush=True)
            if method:
                self.methods[method] = {"ok": False, "error": f"{type(e).__name__}: {str(e)[:300]}"}
            raise
        print(f"  = {compact(show(answer) if show else answer)}", flush=True)
        if method:
            self.methods[method] = {"ok": True}
        return answer

    def check(self, name: str, ok: bool, detail: Any = None) -> bool:
        self.checks.append({"check": name, "ok": bool(ok), "detail": detail})
        print(f"  [{'PASS' if ok else 'FAIL'}] {name}" + (f": {compact(detail, 300)}" if detail is not None else ""),
              flush=True)
        return bool(ok)


def heading(title: str) -> None:
    print(f"\n== {title}", flush=True)


# ------------------------------------------------------------------------------------------------
# The service's side doors: agent registration, the human's claim, the emulator's faucet


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def user_token(secret: str, sub: str) -> str:
    """An HS256 user JWT as `npm run token` signs one (no issuer/audience configured)."""
    now = int(time.time())
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = b64url(json.dumps({"sub": sub, "iat": now, "exp": now + 3600}).encode())
    sig = hmac.new(secret.encode(), f"{header}.{claims}".encode(), hashlib.sha256).digest()
    return f"{header}.{claims}.{b64url(sig)}"


class Service:
    def __init__(self, base: str, data_dir: Path | None) -> None:
        self.base = base.rstrip("/")
        self.data_dir = data_dir

    def secret(self, env_name: str, file: str) -> str:
        if os.environ.get(env_name):
            return os.environ[env_name]
        if self.data_dir and (self.data_dir / file).exists():
            return (self.data_dir / file).read_text().strip()
        raise SystemExit(f"{env_name} unset and no {file} in --data-dir: pass the service's DATA_DIR")

    def http(self, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
        headers = {"authorization": f"Bearer {token}"} if token else {}
        r = requests.request(method, f"{self.base}{path}", json=body, headers=headers, timeout=60)
        r.raise_for_status()
        return r.json() if r.content else None

    def emulator(self) -> str:
        """The Polymarket emulator's base URL (its /clob host), from the operator's venue list."""
        venues = self.http("GET", "/api/admin/venues", self.secret("OPERATOR_TOKEN", "operator-token"))
        if venues.get("mode") != "emulated":
            raise SystemExit("The service does not run against the emulators: start it with VENUES=emulated.")
        poly = next(v for v in venues["venues"] if v["venue"] == "polymarket")
        clob = next(h["base_url"] for h in poly["hosts"] if h["base_url"].endswith("/clob"))
        return clob[: -len("/clob")]


def emulator_admin(emulator: str, method: str, path: str, body: Any = None) -> Any:
    r = requests.request(method, f"{emulator}/__admin{path}", json=body, timeout=30)
    r.raise_for_status()
    return r.json()


def redirect_clob_host(clob: str) -> None:
    """Points the client's hard-coded Polymarket CLOB host at the emulator's, as DNS would.

    The client derives a wallet's CLOB credentials (and cancels its orders) with py-clob-client at
    https://clob.polymarket.com, a constant no setting changes. Its own code runs unchanged; only
    the host the py-clob-client objects it builds talk to is the emulator's.
    """
    from py_clob_client.client import ClobClient

    real = "https://clob.polymarket.com"
    init = ClobClient.__init__

    def emulated_init(self: Any, host: str, *args: Any, **kwargs: Any) -> None:
        init(self, clob if host.rstrip("/") == real else host, *args, **kwargs)

    ClobClient.__init__ = emulated_init  # type: ignore[method-assign]
    SimmerClient.POLYMARKET_CLOB_API = clob


# ------------------------------------------------------------------------------------------------
# A receiver for the chat bridge (clawdbot_webhook_url)


class Receiver:
    def __init__(self) -> None:
        self.got: list[dict] = []
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                raw = self.rfile.read(int(self.headers.get("content-length") or 0))
                outer.got.append({"raw": raw.decode(), "headers": {k.lower(): v for k, v in self.headers.items()}})
                self.send_response(200)
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *_: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/clawdbot"

    def wait(self, pred: Callable[[dict], bool], timeout: float) -> dict | None:
        end = time.time() + timeout
        while time.time() < end:
            for g in self.got:
                if pred(g):
                    return g
            time.sleep(0.25)
        return None

    def close(self) -> None:
        self.server.shutdown()


def signature_holds(delivery: dict, secret: str) -> bool:
    """X-Simmer-Signature-V2 `t=<ts>,v1=<hex>` over `<ts>.<body>`, or the body-only X-Simmer-Signature."""
    h = delivery["headers"]
    raw = delivery["raw"].encode()
    v2 = h.get("x-simmer-signature-v2")
    if v2:
        parts = dict(p.split("=", 1) for p in v2.split(",") if "=" in p)
        ts, sig = parts.get("t"), parts.get("v1")
        if ts and sig:
            want = hmac.new(secret.encode(), f"{ts}.".encode() + raw, hashlib.sha256).hexdigest()
            if hmac.compare_digest(want, sig):
                return True
    v1 = h.get("x-simmer-signature")
    if v1:
        want = hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
        return hmac.compare_digest(want, v1.removeprefix("sha256="))
    return False


def fund_wallet(run: Run, emulator: str, address: str) -> None:
    """1000 pUSD and 1 POL for a new key on the Polymarket emulator (its faucet)."""
    run.call(f"<emulator>/__admin/wallets/{address}/fund {{pusd: 1000}}",
             lambda: emulator_admin(emulator, "POST", f"/wallets/{address}/fund", {"pusd": 1000}),
             lambda r: pick(r, "pusd"))
    run.call(f"<emulator>/__admin/polygon/accounts/{address}/fund {{pol: 1}}",
             lambda: emulator_admin(emulator, "POST", f"/polygon/accounts/{address}/fund", {"pol": 1}),
             lambda r: pick(r, "pol", "nonce"))


def new_imported_market(run: Run, client: SimmerClient, emulator: str, title: str, slug: str,
                        label: str = "") -> tuple[dict, dict]:
    """A new yes/no event on the Polymarket emulator, imported with the client: (the event, the import)."""
    created = emulator_admin(emulator, "POST", "/events", {
        "title": title, "slug": slug, "outcomes": ["Yes", "No"], "prices": [0.55, 0.45]})
    url = f"https://polymarket.com/market/{created['markets'][0]['slug']}"
    imported = run.call(f"{label}client.import_market('{url}')", lambda: client.import_market(url),
                        lambda r: pick(r, "success", "status", "market_id", "external_price_yes"),
                        method="import_market")
    return created, imported


# ------------------------------------------------------------------------------------------------
# The acceptance flow


def acceptance(run: Run, svc: Service, key: str, result: dict) -> tuple[SimmerClient, dict]:
    heading("Setup: an agent, its human's claim, real trading on, a new EVM key funded on the emulator")
    reg = run.call("POST /api/sdk/agents/register", lambda: svc.http(
        "POST", "/api/sdk/agents/register", body={"name": f"official-client-{secrets.token_hex(3)}"}),
        lambda r: pick(r, "agent_id", "claim_code", "status"))
    api_key = reg["api_key"]
    sub = f"acceptance-user-{secrets.token_hex(4)}"
    token = user_token(svc.secret("JWT_SECRET", "jwt-secret"), sub)
    run.call(f"POST /api/sdk/agents/claim (user {sub})", lambda: svc.http(
        "POST", "/api/sdk/agents/claim", token, {"claim_code": reg["claim_code"]}),
        lambda r: pick(r, "success", "claimed", "claimed_by", "agent_id"))
    run.call("PATCH /api/sdk/settings {sdk_real_trading_enabled: true} (user)", lambda: svc.http(
        "PATCH", "/api/sdk/settings", token, {"sdk_real_trading_enabled": True}),
        lambda r: pick(r, "sdk_real_trading_enabled", "wallet_address", "wallet_ownership"))

    account = Account.from_key(key)
    emulator = svc.emulator()
    print(f"  new EVM key → {account.address}; Polymarket emulator at {emulator}")
    fund_wallet(run, emulator, account.address)

    redirect_clob_host(f"{emulator}/clob")
    client = SimmerClient(api_key=api_key, base_url=svc.base, venue="polymarket", private_key=key, live=True)
    print(f"  SimmerClient(venue='polymarket', live=True, private_key=<new key>) — simmer-sdk {simmer_sdk.__version__}")

    heading("Wallet: link, approvals, balance")
    linked = run.call("client.link_wallet()", client.link_wallet,
                      lambda r: pick(r, "success", "wallet_address", "wallet_ownership",
                                     "clob_credentials_registered", "clob_credentials_error"),
                      method="link_wallet")
    run.check("link_wallet: linked, CLOB credentials registered",
              linked.get("success") is True and linked.get("clob_credentials_registered") is True,
              pick(linked, "success", "clob_credentials_registered"))

    approvals = run.call("client.set_approvals()", client.set_approvals,
                         lambda r: {**pick(r, "set", "skipped", "failed"),
                                    "details": [f"{d.get('status')}:{d.get('description', '')[:40]}"
                                                for d in r.get("details", [])]},
                         method="set_approvals")
    result["set_approvals"] = pick(approvals, "set", "skipped", "failed")
    run.check("set_approvals → 12 set, 0 failed",
              approvals.get("set") == 12 and approvals.get("failed") == 0, result["set_approvals"])

    status = run.call("client.check_approvals()", client.check_approvals,
                      lambda r: pick(r, "all_set", "missing", "checked_at"),
                      method="check_approvals")
    result["all_set"] = status.get("all_set")
    run.check("check_approvals → all_set: true", status.get("all_set") is True)

    can = run.call("client.ensure_can_trade()", client.ensure_can_trade, method="ensure_can_trade")
    result["ensure_can_trade"] = can
    run.check("ensure_can_trade → ok with the funded pUSD balance",
              can.get("ok") is True and can.get("reason") == "ok" and abs(float(can.get("balance", 0)) - 1000) < 1e-6,
              pick(can, "ok", "reason", "balance", "collateral"))

    heading("Trades: a buy on Polymarket signed by the client, a buy on sim")
    tag = secrets.token_hex(3)
    created, imported = new_imported_market(run, client, emulator, f"Acceptance: will the official client trade ({tag})?",
                                            f"official-client-{tag}")
    poly_market = imported["market_id"]
    buy = run.call(f"client.trade({poly_market[:8]}…, 'yes', amount=10)  # venue polymarket, signed locally",
                   lambda: client.trade(poly_market, "yes", amount=10, reasoning="acceptance: client-signed buy"),
                   lambda r: pick(r, "success", "venue", "shares_bought", "cost", "order_status", "fill_status",
                                  "error", "error_code"),
                   method="trade")
    result["polymarket_buy"] = pick(buy, "success", "shares_bought", "fill_status")
    run.check("a Polymarket buy signed by the client fills", buy.success and buy.shares_bought > 0,
              result["polymarket_buy"])

    sim_markets = run.call("client.get_markets(venue='sim', limit=5)",
                           lambda: client.get_markets(venue="sim", limit=5),
                           lambda r: [(m.id[:8], m.question[:40]) for m in r], method="get_markets")
    sim_market = sim_markets[0].id
    result["sim_market"] = sim_market
    sim_buy = run.call(f"client.trade({sim_market[:8]}…, 'yes', amount=25, venue='sim')",
                       lambda: client.trade(sim_market, "yes", amount=25, venue="sim",
                                            reasoning="acceptance: sim buy"),
                       lambda r: pick(r, "success", "venue", "shares_bought", "cost", "balance", "error"))
    run.check("a sim buy fills", sim_buy.success and sim_buy.shares_bought > 0,
              pick(sim_buy, "success", "shares_bought"))

    heading("Monitors on the sim position (no venue sent, as the client sends none)")
    mon = run.call(f"client.set_monitor({sim_market[:8]}…, 'yes', stop_loss_pct=0.25)",
                   lambda: client.set_monitor(sim_market, "yes", stop_loss_pct=0.25),
                   lambda r: pick(r, "success", "side", "stop_loss_pct", "take_profit_pct", "shares", "message"),
                   method="set_monitor")
    result["set_monitor"] = pick(mon, "success", "stop_loss_pct")
    run.check("set_monitor on the sim position → stop-loss set", mon.get("success") is True
              and mon.get("stop_loss_pct") == 0.25, result["set_monitor"])
    listed = run.call("client.list_monitors()", client.list_monitors,
                      lambda r: [pick(m, "market_id", "side", "venue", "stop_loss_pct", "status") for m in r],
                      method="list_monitors")
    run.check("list_monitors shows it", any(m.get("market_id") == sim_market and m.get("stop_loss_pct") == 0.25
                                            for m in listed))
    deleted = run.call(f"client.delete_monitor({sim_market[:8]}…, 'yes')",
                       lambda: client.delete_monitor(sim_market, "yes"), method="delete_monitor")
    after = run.call("client.list_monitors()", client.list_monitors,
                     lambda r: [pick(m, "market_id", "side", "venue", "stop_loss_pct") for m in r])
    result["delete_monitor"] = deleted
    run.check("delete_monitor removes it", deleted.get("success") is True
              and not any(m.get("market_id") == sim_market and m.get("side") == "yes" for m in after))

    heading("Chat bridge: update_settings(clawdbot_webhook_url=…) and a delivery")
    rx = Receiver()
    try:
        chat_id = f"acceptance-{tag}"
        settings = run.call(f"client.update_settings(clawdbot_webhook_url='{rx.url}', clawdbot_chat_id=…, "
                            "clawdbot_channel='telegram')",
                            lambda: client.update_settings(clawdbot_webhook_url=rx.url, clawdbot_chat_id=chat_id,
                                                           clawdbot_channel="telegram"),
                            lambda r: {**pick(r, "clawdbot_webhook_url", "clawdbot_chat_id", "clawdbot_channel"),
                                       "clawdbot_webhook_secret": "<64 hex>" if r.get("clawdbot_webhook_secret") else None},
                            method="update_settings")
        run.check("update_settings accepted the bridge", settings.get("clawdbot_webhook_url") == rx.url)
        read = run.call("client.get_settings()", client.get_settings,
                        lambda r: pick(r, "clawdbot_webhook_url", "clawdbot_chat_id", "clawdbot_channel",
                                       "max_trades_per_day"), method="get_settings")
        run.check("get_settings returns it", read.get("clawdbot_webhook_url") == rx.url)
        other = sim_markets[1].id
        trigger = run.call(f"client.trade({other[:8]}…, 'yes', amount=5, venue='sim')  # an event for the bridge",
                           lambda: client.trade(other, "yes", amount=5, venue="sim", reasoning="acceptance: bridge"),
                           lambda r: pick(r, "success", "trade_id", "shares_bought", "error"))
        got = rx.wait(lambda g: json.loads(g["raw"]).get("type") == "trade.executed", 60)
        body = json.loads(got["raw"]) if got else None
        if got:
            print(f"  receiver got: {compact({'type': body.get('type'), 'data': pick(body.get('data', {}), 'trade_id', 'market_id', 'side', 'venue', 'chat_id', 'channel')}, 500)}")
        secret = settings.get("clawdbot_webhook_secret") or ""
        signed = bool(got and secret and signature_holds(got, secret))
        result["clawdbot_delivery"] = {"type": body.get("type") if body else None, "signed": signed,
                                       "chat_id": (body or {}).get("data", {}).get("chat_id")}
        run.check("a signed trade.executed delivery reached the bridge, with the chat id and channel",
                  bool(got) and signed and body["data"].get("chat_id") == chat_id
                  and body["data"].get("channel") == "telegram", result["clawdbot_delivery"])
        _ = trigger
    finally:
        # The receiver stops with this script: the bridge is cleared, so that no delivery retries at it.
        run.call("client.update_settings(clawdbot_webhook_url=None)",
                 lambda: client.update_settings(clawdbot_webhook_url=None),
                 lambda r: pick(r, "clawdbot_webhook_url"))
        rx.close()
    market = created["markets"][0]
    return client, {"poly_market": poly_market, "sim_market": sim_market, "api_key": api_key, "token": token,
                    "emulator": emulator, "address": account.address, "agent_id": reg["agent_id"], "key": key,
                    "condition_id": market["condition_id"], "yes_token": market["token_ids"][0],
                    "third_sim_market": sim_markets[2].id,
                    "no_token": market["token_ids"][1]}


# ------------------------------------------------------------------------------------------------
# Every other public method

# Methods that cannot be exercised offline, with why (they talk to third parties, not to the service).
NOT_OFFLINE = {
    "check_for_updates": "asks PyPI (pypi.org/pypi/simmer-sdk/json) directly, not the service",
    "get_top_holders": "asks Polymarket's Data API (data-api.polymarket.com/holders) directly, not the service",
    "register_agent_wallet": "needs an OWS vault (open-wallet-standard, not installed) to name a wallet",
    "with_ows_wallet": "needs an OWS vault (open-wallet-standard, not installed)",
    "place_combo": "combos are quoted and placed through Polymarket's RFQ gateway (wss://combos-rfq-gateway-"
                   "requester.polymarket.sh), which the client calls directly; only its dry run is local",
    "maker_rewards_status": "asks Polymarket's CLOB rewards API (/rewards/markets/<condition id>) directly, "
                            "not the service; the emulator does not model rewards",
}
# Methods whose refusal is this service's design, not a gap (said in the report).
BY_DESIGN = {
    "update_agent_wallet_creds": "per-agent wallets here are Elite wallets whose key the service creates and "
                                 "holds; a key the client holds has no per-agent wallet row to update (404 with a fix)",
}


def sweep(run: Run, svc: Service, client: SimmerClient, ctx: dict) -> None:
    heading("The client's other public methods")
    pm, sm, cond = ctx["poly_market"], ctx["sim_market"], ctx["condition_id"]

    def attempt(method: str, label: str, fn: Callable[[], Any], show: Callable[[Any], Any] | None = None,
                ok: Callable[[Any], bool] | None = None, why_not: Callable[[Any], str] | None = None) -> Any:
        try:
            answer = run.call(label, fn, show, method=method)
        except Exception:
            if method in NOT_OFFLINE:
                run.methods[method] = {"ok": None, "error": NOT_OFFLINE[method]}
            return None
        if ok is not None and method not in NOT_OFFLINE and not ok(answer):
            run.methods[method] = {"ok": False, "error": why_not(answer) if why_not else compact(answer, 300)}
            print(f"  ! not what the client expects: {run.methods[method]['error']}")
        return answer

    def field(obj: Any, name: str) -> Any:
        return obj.get(name) if isinstance(obj, dict) else getattr(obj, name, None)

    # Construction
    os.environ["SIMMER_API_KEY"] = ctx["api_key"]
    attempt("from_env", "SimmerClient.from_env(base_url=…).get_portfolio()  # SIMMER_API_KEY set",
            lambda: SimmerClient.from_env(base_url=svc.base).get_portfolio(),
            lambda r: pick(r, "sim_balance", "positions_count"), ok=lambda r: isinstance(r, dict))
    attempt("readonly", "SimmerClient.readonly(api_key, base_url=…).get_markets(limit=1)",
            lambda: SimmerClient.readonly(ctx["api_key"], base_url=svc.base).get_markets(limit=1),
            lambda r: [m.question[:40] for m in r], ok=lambda r: len(r) == 1)
    attempt("check_for_updates", "SimmerClient.check_for_updates(warn=False)",
            lambda: SimmerClient.check_for_updates(warn=False), ok=lambda r: r.get("latest") is not None)
    if run.methods.get("check_for_updates", {}).get("ok") is False:
        run.methods["check_for_updates"] = {"ok": None, "error": NOT_OFFLINE["check_for_updates"]}

    # Reads
    attempt("get_briefing", "client.get_briefing()", client.get_briefing,
            lambda r: {"keys": sorted((r or {}).keys())[:14],
                       "venues": sorted(((r or {}).get("venues") or {}).keys()),
                       "polymarket.balance": (((r or {}).get("venues") or {}).get("polymarket") or {}).get("balance")},
            ok=lambda r: isinstance(r, dict) and "venues" in r)
    attempt("preflight", "client.preflight(planned_amount=5)", lambda: client.preflight(planned_amount=5),
            lambda r: pick(r, "ok_to_trade", "blockers", "warnings", "signer_status", "spendable_balance",
                           "execution_wallet"), ok=lambda r: r.ok_to_trade is True,
            why_not=lambda r: f"ok_to_trade false: {r.blockers} {r.warnings}")
    attempt("get_portfolio", "client.get_portfolio()", client.get_portfolio,
            lambda r: {**pick(r, "balance_usdc", "pnl_total", "positions_count"),
                       "polymarket": pick((r or {}).get("polymarket") or {}, "balance", "balance_checked_at")},
            ok=lambda r: ((r.get("polymarket") or {}).get("balance") or 0) > 0)
    attempt("get_positions", "client.get_positions()", client.get_positions,
            lambda r: [(p.market_id[:8], p.venue, round(p.shares_yes, 2), round(p.shares_no, 2)) for p in r],
            ok=lambda r: {pm, sm} <= {p.market_id for p in r}, why_not=lambda r: "a position is missing")
    attempt("get_held_markets", "client.get_held_markets()", client.get_held_markets,
            lambda r: {k[:8]: v for k, v in r.items()}, ok=lambda r: pm in r)
    attempt("check_conflict", f"client.check_conflict({pm[:8]}…, 'another-skill')",
            lambda: client.check_conflict(pm, "another-skill"))
    attempt("get_total_pnl", "client.get_total_pnl()", client.get_total_pnl)
    attempt("get_market_by_id", f"client.get_market_by_id({pm[:8]}…)", lambda: client.get_market_by_id(pm),
            lambda m: pick(m, "question", "status", "external_price_yes", "best_bid", "best_ask", "spread"),
            ok=lambda m: m is not None and m.polymarket_condition_id == cond)
    attempt("find_markets", "client.find_markets('Acceptance')", lambda: client.find_markets("Acceptance"),
            lambda r: [m.question[:50] for m in r][:3], ok=lambda r: any(m.id == pm for m in r))
    attempt("get_fast_markets", "client.get_fast_markets(limit=3)", lambda: client.get_fast_markets(limit=3),
            lambda r: [(m.question[:40], m.is_live_now) for m in r], ok=lambda r: len(r) > 0)
    end = time.strftime("%Y-%m-%dT%H:%M:00Z", time.gmtime(time.time() - 600))
    start = time.strftime("%Y-%m-%dT%H:%M:00Z", time.gmtime(time.time() - 900))
    attempt("get_candles", f"client.get_candles('BTCUSDT', {start}, {end})",
            lambda: client.get_candles("BTCUSDT", start, end, allow_live_fallback=False),
            lambda r: {"candles": len(r), "first": r[0] if r else None}, ok=lambda r: len(r) == 5)
    attempt("get_market_context", f"client.get_market_context({pm[:8]}…)", lambda: client.get_market_context(pm),
            lambda r: {"market": pick(r.get("market", {}), "spread", "spread_cents", "ai_consensus"),
                       "positions": {k: bool(v) for k, v in (r.get("positions") or {}).items()},
                       "warnings": r.get("warnings")},
            ok=lambda r: bool((r.get("positions") or {}).get("polymarket")))
    attempt("get_price_history", f"client.get_price_history({sm[:8]}…)", lambda: client.get_price_history(sm),
            lambda r: f"{len(r)} points", ok=lambda r: len(r) > 0)
    attempt("get_trades", "client.get_trades()", lambda: client.get_trades(),
            lambda r: {"total_count": r.get("total_count"), "venues": sorted({t.get("venue") for t in r.get("trades", [])})},
            ok=lambda r: len(r.get("trades", [])) >= 3)
    third = ctx["third_sim_market"]
    attempt("get_outcomes", f"client.trade({third[:8]}…, 'yes', 3, venue='sim', skill_slug='acceptance-skill') "
            "then client.get_outcomes(skill_slug='acceptance-skill')",
            lambda: (client.trade(third, "yes", amount=3, venue="sim", skill_slug="acceptance-skill",
                                  reasoning="acceptance: a skill's trade"),
                     client.get_outcomes(skill_slug="acceptance-skill"))[1],
            lambda r: compact(r, 250), ok=lambda r: (r or {}).get("trades", 0) >= 1)
    attempt("prepare_real_trade", f"client.prepare_real_trade({pm[:8]}…, 'yes', 5)",
            lambda: client.prepare_real_trade(pm, "yes", 5),
            lambda r: pick(r, "success", "intent_id", "error"), ok=lambda r: r.success)
    attempt("list_importable_markets", "client.list_importable_markets(min_volume=1000, limit=3)",
            lambda: client.list_importable_markets(min_volume=1000, limit=3),
            lambda r: [pick(m, "question", "url") for m in r], ok=lambda r: len(r) > 0)
    attempt("check_market_exists", "client.check_market_exists(condition_id=<the imported one>)",
            lambda: client.check_market_exists(condition_id=cond), ok=lambda r: r.get("exists") is True)
    attempt("get_top_holders", "client.get_top_holders(<condition id>)", lambda: client.get_top_holders(cond))
    attempt("maker_rewards_status", f"client.maker_rewards_status({pm[:8]}…)",
            lambda: client.maker_rewards_status(pm), lambda r: compact(r, 200))

    # Kalshi imports (the emulator's KXHIGHNY-26FEB19 event)
    ev = attempt("import_kalshi_event", "client.import_kalshi_event('KXHIGHNY-26FEB19')",
                 lambda: client.import_kalshi_event("KXHIGHNY-26FEB19"),
                 lambda r: {**pick(r, "event_id", "markets_imported", "markets_skipped", "status"),
                            "tickers": [m.get("kalshi_ticker") for m in r.get("markets", [])][:3]},
                 ok=lambda r: len(r.get("markets", [])) > 0)
    ticker = ((ev or {}).get("markets") or [{}])[0].get("kalshi_ticker") or "KXHIGHNY-26FEB19-T41"
    attempt("import_kalshi_market", f"client.import_kalshi_market('{ticker}')",
            lambda: client.import_kalshi_market(ticker),
            lambda r: pick(r, "success", "status", "market_id", "kalshi_ticker"), ok=lambda r: bool(r.get("market_id")))

    # Paper trading on real prices (live=False): no call to the service writes anything.
    paper = SimmerClient(api_key=ctx["api_key"], base_url=svc.base, venue="polymarket", live=False)
    attempt("get_paper_summary", f"paper client: trade({pm[:8]}…, 'yes', 5) then get_paper_summary()",
            lambda: (paper.trade(pm, "yes", amount=5), paper.get_paper_summary())[1], lambda r: compact(r, 250),
            ok=lambda r: isinstance(r, dict))

    # Orders: a GTC sell far above the book rests; the client cancels at the CLOB itself (external key).
    def resting_sell(price: float) -> str:
        r = client.trade(pm, "yes", shares=5, action="sell", order_type="GTC", price=price,
                         reasoning="acceptance: resting sell")
        if not r.success or r.order_status != "live":
            raise RuntimeError(f"the GTC sell did not rest: {r.error or r.order_status}")
        return str(r.order_id)

    order = attempt("get_open_orders", "client.trade(… sell 5 @ 0.95 GTC) then client.get_open_orders()",
                    lambda: (lambda oid: (oid, client.get_open_orders()))(resting_sell(0.95)),
                    lambda r: {"order_id": r[0][:18], "open": [pick(o, "order_id", "side", "price", "shares")
                                                            for o in r[1].get("orders", [])]},
                    ok=lambda r: any(o.get("order_id") == r[0] for o in r[1].get("orders", [])))
    if order:
        attempt("cancel_order", "client.cancel_order(<order id>)", lambda: client.cancel_order(order[0]),
                lambda r: compact(r, 200), ok=lambda r: r.get("success", True) is not False and not r.get("not_canceled"))
    attempt("cancel_market_orders", f"client.trade(… sell 5 @ 0.96 GTC) then client.cancel_market_orders({pm[:8]}…)",
            lambda: (resting_sell(0.96), client.cancel_market_orders(pm))[1], lambda r: compact(r, 200),
            ok=lambda r: not r.get("error"))
    attempt("cancel_all_orders", "client.trade(… sell 5 @ 0.97 GTC) then client.cancel_all_orders()",
            lambda: (resting_sell(0.97), client.cancel_all_orders())[1], lambda r: compact(r, 200),
            ok=lambda r: not r.get("error"))

    # Price alerts
    alert = attempt("create_alert", f"client.create_alert({sm[:8]}…, 'yes', 'above', 0.99)",
                    lambda: client.create_alert(sm, "yes", "above", 0.99), lambda r: compact(r, 200),
                    ok=lambda r: bool(r.get("id") or r.get("alert_id")))
    attempt("get_alerts", "client.get_alerts()", client.get_alerts, lambda r: f"{len(r)} alert(s)",
            ok=lambda r: len(r) >= 1)
    attempt("get_triggered_alerts", "client.get_triggered_alerts()", client.get_triggered_alerts,
            lambda r: f"{len(r)} triggered", ok=lambda r: isinstance(r, list))
    if alert:
        attempt("delete_alert", "client.delete_alert(<id>)",
                lambda: client.delete_alert(alert.get("id") or alert.get("alert_id")), lambda r: compact(r, 200))

    # Webhooks, to a receiver on 127.0.0.1
    rx = Receiver()
    try:
        hook = attempt("register_webhook", f"client.register_webhook('{rx.url}')",
                       lambda: client.register_webhook(rx.url), lambda r: pick(r, "id", "url", "events"),
                       ok=lambda r: bool(r.get("id") or r.get("webhook_id")))
        attempt("list_webhooks", "client.list_webhooks()", client.list_webhooks, lambda r: f"{len(r)} webhook(s)",
                ok=lambda r: len(r) >= 1)
        attempt("test_webhook", "client.test_webhook() and the receiver's webhook.test",
                lambda: (client.test_webhook(), rx.wait(lambda g: json.loads(g["raw"]).get("type") == "webhook.test", 30)),
                lambda r: {"answer": r[0], "delivered": bool(r[1])}, ok=lambda r: bool(r[1]))
        if hook:
            attempt("delete_webhook", "client.delete_webhook(<id>)",
                    lambda: client.delete_webhook(hook.get("id") or hook.get("webhook_id")), lambda r: compact(r, 200))
    finally:
        rx.close()

    # Wallet extras
    attempt("ensure_approvals", "client.ensure_approvals()", client.ensure_approvals,
            lambda r: {**pick(r, "ready"), "missing_transactions": len(r.get("missing_transactions", []))},
            ok=lambda r: r.get("ready") is True)
    attempt("get_agent_wallets", "client.get_agent_wallets()", client.get_agent_wallets, lambda r: compact(r, 200))
    attempt("get_agent_wallet_pnl", "client.get_agent_wallet_pnl(agent_id)",
            lambda: client.get_agent_wallet_pnl(ctx["agent_id"]), lambda r: compact(r, 200))
    attempt("update_agent_wallet_creds", "client.update_agent_wallet_creds(agent_id=…, private_key=<the key>)",
            lambda: client.update_agent_wallet_creds(agent_id=ctx["agent_id"], private_key=ctx["key"]),
            lambda r: compact(r, 200))
    attempt("register_agent_wallet", "client.register_agent_wallet('acceptance')",
            lambda: client.register_agent_wallet("acceptance"), lambda r: compact(r, 200))
    attempt("with_ows_wallet", "SimmerClient.with_ows_wallet('acceptance', api_key=…)",
            lambda: SimmerClient.with_ows_wallet("acceptance", api_key=ctx["api_key"], base_url=svc.base),
            lambda c: {"client": repr(c), "wallet_address": c.wallet_address})
    attempt("place_combo", "client.place_combo([<yes token>, <sim token>], 5, dry_run=True)",
            lambda: client.place_combo([ctx["yes_token"], ctx["no_token"]], 5, dry_run=True),
            lambda r: compact(r, 250))

    # Redemption: the emulator resolves the Polymarket market YES; the service sees it within
    # RESOLUTION_CHECK_SECONDS; then the client redeems its winning shares.
    emulator_admin(ctx["emulator"], "POST", f"/markets/{cond}/resolve", {"outcome": "yes"})
    print(f"  <emulator> resolved {cond[:12]}… YES; waiting for the service to see it")
    deadline = time.time() + 150
    while time.time() < deadline and (client.get_market_by_id(pm).status != "resolved"):
        time.sleep(3)
    attempt("redeem", f"client.redeem({pm[:8]}…, 'yes')", lambda: client.redeem(pm, "yes"),
            lambda r: compact(r, 300), ok=lambda r: r.get("success") is not False)
    attempt("auto_redeem", "client.auto_redeem()", client.auto_redeem, lambda r: compact(r, 300),
            ok=lambda r: isinstance(r, list))

    # Deposit wallets (issue 26 item 5): last, as they move the account onto its deposit wallet. The
    # import comes first: it deploys (or adopts) the wallet and sets its twelve approvals, which the
    # other three need; USDC.e sent to the wallet on the emulator is what wrap_on_dw turns into pUSD.
    imported = attempt("import_polymarket_wallet", "client.import_polymarket_wallet()",
                       client.import_polymarket_wallet, lambda r: compact(r, 300),
                       ok=lambda r: r.get("success") is not False)
    attempt("activate_polymarket_dw", "client.activate_polymarket_dw()  # approvals already set",
            client.activate_polymarket_dw, lambda r: compact(r, 300), ok=lambda r: r.get("success") is not False)
    attempt("activate_combo_dw", "client.activate_combo_dw()", client.activate_combo_dw, lambda r: compact(r, 300),
            ok=lambda r: r.get("success") is not False)
    dw = (imported or {}).get("deposit_wallet_address")
    if dw:
        run.call(f"<emulator>/__admin/wallets/{dw}/fund {{usdce: 25}}",
                 lambda: emulator_admin(ctx["emulator"], "POST", f"/wallets/{dw}/fund", {"usdce": 25}))
    attempt("wrap_on_dw", "client.wrap_on_dw()", client.wrap_on_dw, lambda r: compact(r, 300),
            ok=lambda r: r.get("success") is not False and r.get("wrapped", True) is not False)
    # Whatever they answered (the client swallows some of these failures into an empty answer).
    for m, why in NOT_OFFLINE.items():
        if m in run.methods:
            run.methods[m] = {"ok": None, "error": why}
    for m, why in BY_DESIGN.items():
        if run.methods.get(m, {}).get("ok") is False:
            run.methods[m] = {"ok": "design", "error": f"{why}: {run.methods[m]['error'][:160]}"}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base-url", default=os.environ.get("SIMMER_API_URL", "http://localhost:8080"))
    p.add_argument("--data-dir", default=os.environ.get("DATA_DIR"),
                   help="the service's DATA_DIR (its jwt-secret and operator-token); or set JWT_SECRET and OPERATOR_TOKEN")
    p.add_argument("--all-methods", action="store_true", help="also try the client's other public methods")
    p.add_argument("--json-out", help="write the checks and figures as JSON here")
    args = p.parse_args()

    svc = Service(args.base_url, Path(args.data_dir) if args.data_dir else None)
    run = Run()
    result: dict = {"sdk_version": simmer_sdk.__version__}
    key = "0x" + secrets.token_hex(32)
    print(f"simmer-sdk {simmer_sdk.__version__} against {svc.base} ({time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())})")
    try:
        client, ctx = acceptance(run, svc, key, result)
        if args.all_methods:
            sweep(run, svc, client, ctx)
    except Exception as e:  # the first unexpected error ends the run; the checks so far are reported
        traceback.print_exc()
        run.check("the run completed", False, f"{type(e).__name__}: {e}")
    result["checks"] = run.checks
    result["methods"] = run.methods
    failed = [c["check"] for c in run.checks if not c["ok"]]
    print(f"\n{len(run.checks) - len(failed)}/{len(run.checks)} acceptance checks passed" +
          (f"; failed: {failed}" if failed else ""))
    if args.all_methods:
        works = sorted(m for m, r in run.methods.items() if r["ok"] is True)
        fails = {m: r["error"] for m, r in run.methods.items() if r["ok"] is False}
        design = {m: r["error"] for m, r in run.methods.items() if r["ok"] == "design"}
        offline = {m: r["error"] for m, r in run.methods.items() if r["ok"] is None}
        print(f"\nclient methods tried: {len(run.methods)}: {len(works)} work, {len(fails)} fail, "
              f"{len(design)} refused by design, {len(offline)} cannot apply offline")
        print(f"  work: {', '.join(works)}")
        for m, err in sorted(fails.items()):
            print(f"  FAIL {m}: {err[:300]}")
        for m, err in sorted(design.items()):
            print(f"  design {m}: {err[:300]}")
        for m, err in sorted(offline.items()):
            print(f"  offline {m}: {err[:200]}")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=2, default=str))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
