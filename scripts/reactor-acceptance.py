"""Issue 37's acceptance: a whale trades Polymarket with the official client, a follower's Reactor mirrors it.

Run against a service started as `VENUES=emulated npm start`, with the Python of the client's venv
(`npm test` installs simmer-sdk 0.26.0, httpx-sse and packaging into .cache/simmer-sdk-venv):

    PYTHONPATH=test/fixtures/clients/simmer-reactor-mcp .cache/simmer-sdk-venv/bin/python \\
        scripts/reactor-acceptance.py --base-url http://localhost:8080 --data-dir ./data [--json-out r.json]

What it does, through the clients' own code wherever they have it:
1. a whale agent: registered, claimed by its human, real trading on, a new EVM key funded on the
   Polymarket emulator, linked and approved with the official client (as
   scripts/official-client-acceptance.py does), and a new emulator market imported;
2. a follower agent, claimed, whose Reactor watches the whale's wallet on sim
   (PATCH /api/sdk/reactor/config, the wallet `auto_copy` in its watchlist);
3. the reactor MCP client's own SSE consumer (`simmer_reactor_mcp.sse_client.ReactorSSEClient`,
   vendored unmodified under test/fixtures/clients/simmer-reactor-mcp, REACTOR_AUTO_REACT=false) is
   started for the follower and left to connect;
4. the whale buys with `client.trade()` while the emulated chain mines only on demand; the block
   holding the fill is then mined, and from that moment the script times the signal's arrival in
   the follower's GET /api/sdk/reactor/pending and the event's arrival in the MCP client's buffer;
5. the published copytrading skill, unmodified (test/fixtures/clients/simmer-skills/
   polymarket-copytrading, copied to a scratch folder), runs as
   `python copytrading_trader.py --reactor --once --venue sim` with the follower's key; then the
   follower's trades, pending signals and reactions are read back.

Every step is printed; the skill's and the MCP client's output are printed whole. Exit code 0 when
every check held, 1 otherwise; --json-out writes the checks, the outputs and the two latencies.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import importlib.util
import json
import logging
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parent.parent
SKILL_DIR = ROOT / "test" / "fixtures" / "clients" / "simmer-skills" / "polymarket-copytrading"
MCP_DIR = ROOT / "test" / "fixtures" / "clients" / "simmer-reactor-mcp"


def _load_official_acceptance():
    """scripts/official-client-acceptance.py as a module: its Run, Service and emulator helpers.

    Loading it also sends the clients' calls to anything but loopback to a closed port (the run is
    offline), as its docstring explains.
    """
    spec = importlib.util.spec_from_file_location("official_client_acceptance",
                                                  ROOT / "scripts" / "official-client-acceptance.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


oca = _load_official_acceptance()
Run, Service, compact, pick, heading = oca.Run, oca.Service, oca.compact, oca.pick, oca.heading
emulator_admin, user_token = oca.emulator_admin, oca.user_token

import requests  # noqa: E402
from eth_account import Account  # noqa: E402

import simmer_sdk  # noqa: E402
from simmer_sdk import SimmerClient  # noqa: E402


# ------------------------------------------------------------------------------------------------
# The reactor MCP client's SSE consumer, run on an event loop of its own


class TimedEvents(collections.deque):
    """The consumer's event buffer, noting when each event arrived (the code that fills it is theirs)."""

    def __init__(self, maxlen: int) -> None:
        super().__init__(maxlen=maxlen)
        self.arrivals: list[tuple[float, dict]] = []

    def append(self, item: Any) -> None:
        self.arrivals.append((time.time(), item))
        super().append(item)


class LogLines(logging.Handler):
    """Keeps what the MCP client logs (and prints it, as its server would to stderr)."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        line = f"{time.strftime('%H:%M:%S', time.gmtime(record.created))} {record.levelname} {record.getMessage()}"
        self.lines.append(line)
        print(f"  [mcp] {line}", flush=True)


class McpConsumer:
    """`ReactorSSEClient` of the vendored simmer-reactor-mcp, started and stopped from this thread."""

    def __init__(self, api_key: str, api_url: str) -> None:
        # Passive mode: it buffers events without spawning the skill (the skill is run below, once).
        os.environ["REACTOR_AUTO_REACT"] = "false"
        from simmer_reactor_mcp.sse_client import ReactorSSEClient

        self.log = LogLines()
        logger = logging.getLogger("simmer_reactor_mcp.sse_client")
        logger.setLevel(logging.INFO)
        logger.addHandler(self.log)
        self.client = ReactorSSEClient(api_key=api_key, api_url=api_url)
        self.client.events = TimedEvents(maxlen=self.client.events.maxlen or 100)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)

    def start(self) -> None:
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.client.start(), self.loop).result(30)

    def connected(self) -> bool:
        return any("Connected to SSE stream" in line for line in self.log.lines)

    def stop(self) -> None:
        try:
            asyncio.run_coroutine_threadsafe(self.client.stop(), self.loop).result(15)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)


# ------------------------------------------------------------------------------------------------


def wait_for(pred: Callable[[], Any], timeout: float, every: float = 0.02) -> Any:
    end = time.time() + timeout
    while True:
        got = pred()
        if got or time.time() > end:
            return got
        time.sleep(every)


class Agent:
    """An agent's key on the service's REST API (for what no client method covers)."""

    def __init__(self, base: str, api_key: str) -> None:
        self.base = base
        self.session = requests.Session()
        self.session.headers["authorization"] = f"Bearer {api_key}"

    def get(self, path: str, **params: Any) -> Any:
        r = self.session.get(f"{self.base}{path}", params=params, timeout=30)
        r.raise_for_status()
        return r.json()

    def patch(self, path: str, body: Any) -> Any:
        r = self.session.patch(f"{self.base}{path}", json=body, timeout=30)
        if r.status_code >= 400:
            raise requests.HTTPError(f"{r.status_code}: {r.text[:400]}", response=r)
        return r.json()


def register_claimed(run: Run, svc: Service, name: str) -> dict:
    """A new agent claimed by a new human (a user token signed as `npm run token` does)."""
    reg = run.call(f"POST /api/sdk/agents/register ({name})", lambda: svc.http(
        "POST", "/api/sdk/agents/register", body={"name": f"{name}-{secrets.token_hex(3)}"}),
        lambda r: pick(r, "agent_id", "status"))
    token = user_token(svc.secret("JWT_SECRET", "jwt-secret"), f"reactor-{name}-{secrets.token_hex(4)}")
    run.call(f"POST /api/sdk/agents/claim ({name}'s human)", lambda: svc.http(
        "POST", "/api/sdk/agents/claim", token, {"claim_code": reg["claim_code"]}),
        lambda r: pick(r, "success", "claimed"))
    return {**reg, "token": token}


def whale_setup(run: Run, svc: Service) -> dict:
    heading("The whale: an agent with its own EVM key, linked and approved with the official client")
    reg = register_claimed(run, svc, "whale")
    run.call("PATCH /api/sdk/settings {sdk_real_trading_enabled: true} (the whale's human)", lambda: svc.http(
        "PATCH", "/api/sdk/settings", reg["token"], {"sdk_real_trading_enabled": True}),
        lambda r: pick(r, "sdk_real_trading_enabled"))
    key = "0x" + secrets.token_hex(32)
    address = Account.from_key(key).address
    emulator = svc.emulator()
    print(f"  whale key → {address}; Polymarket emulator at {emulator}")
    oca.fund_wallet(run, emulator, address)
    oca.redirect_clob_host(f"{emulator}/clob")
    client = SimmerClient(api_key=reg["api_key"], base_url=svc.base, venue="polymarket", private_key=key, live=True)
    print(f"  SimmerClient(venue='polymarket', live=True, private_key=<whale key>) — simmer-sdk {simmer_sdk.__version__}")
    linked = run.call("whale: client.link_wallet()", client.link_wallet,
                      lambda r: pick(r, "success", "wallet_address", "clob_credentials_registered"))
    run.check("the whale's wallet is linked", linked.get("success") is True)
    approvals = run.call("whale: client.set_approvals()", client.set_approvals,
                         lambda r: pick(r, "set", "skipped", "failed"))
    run.check("the whale's approvals are set", approvals.get("failed") == 0, pick(approvals, "set", "failed"))
    tag = secrets.token_hex(3)
    created, imported = oca.new_imported_market(run, client, emulator,
                                                f"Reactor acceptance: will the whale be followed ({tag})?",
                                                f"reactor-acceptance-{tag}", label="whale: ")
    return {"client": client, "address": address.lower(), "emulator": emulator,
            "market_id": imported["market_id"], "market": created["markets"][0]}


def follower_setup(run: Run, svc: Service, whale: str) -> Agent:
    heading("The follower: an agent whose Reactor watches the whale on sim")
    reg = register_claimed(run, svc, "follower")
    follower = Agent(svc.base, reg["api_key"])
    follower.agent_id = reg["agent_id"]  # type: ignore[attr-defined]
    follower.api_key = reg["api_key"]  # type: ignore[attr-defined]
    body = {"wallets": [whale], "venue": "sim", "enabled": True, "min_size": 0, "mirror_fraction": 0.5,
            "watchlist": [{"wallet": whale, "label": "acceptance whale", "auto_copy": True}]}
    config = run.call(f"follower: PATCH /api/sdk/reactor/config {compact(body, 300)}",
                      lambda: follower.patch("/api/sdk/reactor/config", body))
    run.check("the follower's config watches the whale on sim",
              whale in [w.lower() for w in config.get("wallets", [])] and config.get("venue") == "sim"
              and any(e.get("wallet", "").lower() == whale and e.get("auto_copy") for e in config.get("watchlist", [])),
              pick(config, "wallets", "venue", "watchlist"))
    return follower


def whale_trades(run: Run, whale: dict, result: dict) -> tuple[str, float]:
    """The whale's buy, its block mined on demand: the fill's transaction hash and when it was mined."""
    heading("The whale buys; its fill is mined on the emulated chain")
    emulator = whale["emulator"]
    # Blocks only on demand while the whale trades: the moment its fill is mined is then known
    # to the millisecond (the latencies are measured from it).
    emulator_admin(emulator, "POST", "/polygon/mining", {"mode": "manual"})
    try:
        buy = run.call(f"whale: client.trade({whale['market_id'][:8]}…, 'yes', amount=10)",
                       lambda: whale["client"].trade(whale["market_id"], "yes", amount=10,
                                                     reasoning="reactor acceptance: the whale's buy"),
                       lambda r: pick(r, "success", "shares_bought", "cost", "fill_status", "error"))
        result["whale_buy"] = pick(buy, "success", "shares_bought", "cost", "fill_status")
        run.check("the whale's buy through the official client fills", buy.success and buy.shares_bought > 0,
                  result["whale_buy"])
        pending = emulator_admin(emulator, "GET", "/polygon")["pending"]
        rows = requests.get(f"{emulator}/data/trades", params={"user": whale["address"], "takerOnly": "false"},
                            timeout=30).json()
        tx = next((r["transactionHash"] for r in rows if r.get("transactionHash", "").lower() in
                   {p.lower() for p in pending}), None)
        run.check("the whale's fill waits in the chain's pool", tx is not None,
                  {"pending": len(pending), "whale_rows": len(rows)})
        mined = emulator_admin(emulator, "POST", "/polygon/mine", {"blocks": 1})
        mined_at = time.time()
        print(f"  <emulator> mined block {mined['block_number']} with {len(mined['mined'])} transaction(s), "
              f"the whale's fill {tx}")
    finally:
        emulator_admin(emulator, "POST", "/polygon/mining", {"mode": "interval"})
    return str(tx).lower(), mined_at


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--base-url", default=os.environ.get("SIMMER_API_URL", "http://localhost:8080"))
    p.add_argument("--data-dir", default=os.environ.get("DATA_DIR"),
                   help="the service's DATA_DIR (its jwt-secret and operator-token); or set JWT_SECRET and OPERATOR_TOKEN")
    p.add_argument("--json-out", help="write the checks, the outputs and the latencies as JSON here")
    p.add_argument("--timeout", type=float, default=30, help="seconds to wait for the signal and the event")
    args = p.parse_args()

    svc = Service(args.base_url, Path(args.data_dir) if args.data_dir else None)
    run = Run()
    result: dict = {"sdk_version": simmer_sdk.__version__}
    consumer: McpConsumer | None = None
    print(f"simmer-sdk {simmer_sdk.__version__} against {svc.base} ({time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())})")
    try:
        whale = whale_setup(run, svc)
        follower = follower_setup(run, svc, whale["address"])

        heading("The reactor MCP client's SSE consumer, for the follower (REACTOR_AUTO_REACT=false)")
        consumer = McpConsumer(follower.api_key, svc.base)  # type: ignore[attr-defined]
        consumer.start()
        run.check("the MCP client connected to GET /api/sdk/reactor/stream", wait_for(consumer.connected, 20, 0.1))
        result["mcp_auto_copy_wallets"] = sorted(consumer.client._auto_copy_wallets)
        run.check("the MCP client read the whale as auto_copy from the watchlist",
                  whale["address"] in consumer.client._auto_copy_wallets, result["mcp_auto_copy_wallets"])

        tx, mined_at = whale_trades(run, whale, result)
        result["tx_hash"] = tx

        heading("The signal in the follower's pending, the event at the MCP client")

        def pending_signal() -> dict | None:
            signals = follower.get("/api/sdk/reactor/pending", caps="maker").get("reactor_signals", [])
            return next((s for s in signals if str(s.get("tx_hash", "")).lower() == tx), None)

        signal = wait_for(pending_signal, args.timeout)
        pending_at = time.time()
        event = wait_for(lambda: next(((t, e) for t, e in consumer.client.events.arrivals
                                       if str(e.get("whale_wallet", "")).lower() == whale["address"]), None),
                         args.timeout)
        result["signal"] = signal
        result["latency_ms"] = {
            "mined_to_pending": round((pending_at - mined_at) * 1000) if signal else None,
            "mined_to_sse": round((event[0] - mined_at) * 1000) if event else None,
        }
        print(f"  signal: {compact(signal, 600)}")
        print(f"  MCP buffer: {compact(list(consumer.client.events), 600)}")
        print(f"  LATENCY fill mined → signal in pending: {result['latency_ms']['mined_to_pending']} ms "
              f"(polled every 20 ms); fill mined → SSE event at the MCP client: {result['latency_ms']['mined_to_sse']} ms")
        run.check("a copytrade signal of the whale's fill is pending for the follower",
                  bool(signal) and signal.get("type") in (None, "copytrade") and signal.get("side") == "yes"
                  and signal.get("action") == "buy" and signal.get("venue") == "sim"
                  and signal.get("market_id") == whale["market_id"] and float(signal.get("amount") or 0) > 0
                  and str((signal.get("whale") or {}).get("wallet", "")).lower() == whale["address"],
                  pick(signal or {}, "signal_id", "side", "action", "venue", "amount", "market_id"))
        result["mcp_event"] = event[1] if event else None
        run.check("the MCP client's buffer received the reactor_event of the whale's fill",
                  bool(event) and event[1].get("side") == "BUY" and float(event[1].get("size") or 0) > 0,
                  event[1] if event else None)
        result["mcp_get_recent_events"] = consumer.client.get_recent_events(5)

        heading("The copytrading skill, unmodified: copytrading_trader.py --reactor --once --venue sim")
        scratch = Path(tempfile.mkdtemp(prefix="reactor-skill-"))
        skill = scratch / "polymarket-copytrading"
        shutil.copytree(SKILL_DIR, skill)
        env = {k: v for k, v in os.environ.items() if k not in ("REACTOR_AUTO_REACT", "PYTHONPATH")}
        env.update({"SIMMER_API_URL": svc.base, "SIMMER_API_KEY": follower.api_key,  # type: ignore[attr-defined]
                    "HOME": str(scratch), "PYTHONIOENCODING": "utf-8"})
        cmd = [sys.executable, "copytrading_trader.py", "--reactor", "--once", "--venue", "sim"]
        print(f"  $ {' '.join(cmd[1:])}   (in a copy of {SKILL_DIR.relative_to(ROOT)})")
        proc = subprocess.run(cmd, cwd=skill, env=env, capture_output=True, text=True, timeout=180)
        shutil.rmtree(scratch, ignore_errors=True)
        result["skill_output"] = proc.stdout + proc.stderr
        result["skill_exit"] = proc.returncode
        for line in result["skill_output"].splitlines():
            print(f"  [skill] {line}")
        run.check("the skill exited 0 and mirrored the signal", proc.returncode == 0 and "✅" in proc.stdout
                  and "mirrored" in proc.stdout, proc.returncode)

        heading("Read back: the follower's trades, pending signals and reactions")
        trades = follower.get("/api/sdk/trades", limit=20).get("trades", [])
        mirrored = [t for t in trades if t.get("source") == "sdk:copytrading:reactor"]
        result["mirror_trades"] = [pick(t, "id", "trade_id", "market_id", "venue", "side", "action", "cost",
                                        "shares", "source", "skill_slug") for t in mirrored]
        print(f"  trades from the skill: {compact(result['mirror_trades'], 600)}")
        run.check("the mirror trade is in /api/sdk/trades with source sdk:copytrading:reactor on sim",
                  len(mirrored) == 1 and mirrored[0].get("venue") == "sim"
                  and mirrored[0].get("market_id") == whale["market_id"], len(mirrored))
        left = follower.get("/api/sdk/reactor/pending", caps="maker").get("reactor_signals", [])
        run.check("the signal was deleted from pending",
                  not any(str(s.get("tx_hash", "")).lower() == tx for s in left), len(left))
        reactions = follower.get("/api/sdk/reactor/reactions", limit=10).get("reactions", [])
        result["reactions"] = reactions
        print(f"  reactions: {compact(reactions, 600)}")
        run.check("the reaction is recorded, newest first, decision mirrored with the trade id",
                  bool(reactions) and str(reactions[0].get("event_tx_hash", "")).lower() == tx
                  and reactions[0].get("decision") == "mirrored" and bool(reactions[0].get("trade_id")),
                  pick(reactions[0], "event_tx_hash", "decision", "trade_id") if reactions else None)
        events = follower.get("/api/sdk/reactor/events", limit=10).get("events", [])
        run.check("GET /api/sdk/reactor/events has the whale's event",
                  any(str(e.get("whale_wallet", "")).lower() == whale["address"] for e in events), len(events))
    except Exception as e:  # the first unexpected error ends the run; the checks so far are reported
        traceback.print_exc()
        run.check("the run completed", False, f"{type(e).__name__}: {e}")
    finally:
        if consumer:
            consumer.stop()
            result["mcp_log"] = consumer.log.lines
    result["checks"] = run.checks
    failed = [c["check"] for c in run.checks if not c["ok"]]
    print(f"\n{len(run.checks) - len(failed)}/{len(run.checks)} acceptance checks passed" +
          (f"; failed: {failed}" if failed else ""))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=2, default=str))
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())
