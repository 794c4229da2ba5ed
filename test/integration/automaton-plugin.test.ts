import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { testContext } from '../support/context.js';
import { approvedSkill, makeMarket, trade } from '../support/factories.js';
import { api, registerAgent, type RegisteredAgent } from '../support/http.js';
import { until } from '../support/until.js';

/**
 * The `simmer-automaton` plugin's own published code (test/fixtures/automaton/, MIT) against the
 * service over HTTP, with a minimal stand-in for its OpenClaw host's plugin API.
 */
const PLUGIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/automaton/index.js');
const CYCLE_MS = 600;

type Handler = (...args: unknown[]) => unknown;
interface ServiceCtx {
  stateDir: string;
  workspaceDir?: string;
  logger: Logger;
}
interface Logger {
  info: (m: string) => void;
  warn: (m: string) => void;
  error: (m: string) => void;
}

/** The host API the plugin uses: config, a logger, a command runner, hooks, one service, one command. */
function standInHost(apiKey: string, apiUrl: string) {
  const log: string[] = [];
  const logger: Logger = {
    info: (m) => log.push(`info ${m}`),
    warn: (m) => log.push(`warn ${m}`),
    error: (m) => log.push(`error ${m}`),
  };
  const host = {
    log,
    ran: [] as string[][],
    hooks: new Map<string, Handler>(),
    service: null as null | {
      start: (c: ServiceCtx) => Promise<void>;
      stop: (c: ServiceCtx) => Promise<void>;
    },
    command: null as null | { handler: (c: { args?: string }) => Promise<{ text: string }> },
    ctx: { stateDir: '/tmp', workspaceDir: '/nonexistent-workspace', logger } satisfies ServiceCtx,
  };
  const pluginApi = {
    pluginConfig: { apiKey, apiUrl, cycleIntervalMs: CYCLE_MS, maxConcurrent: 2 },
    logger,
    runtime: {
      system: {
        runCommandWithTimeout: async (argv: string[]) => {
          host.ran.push(argv);
          return { stdout: '', stderr: '', code: 0, signal: null, killed: false, termination: 'exit' };
        },
      },
    },
    on: (hook: string, h: Handler) => host.hooks.set(hook, h),
    registerService: (s: typeof host.service) => (host.service = s),
    registerCommand: (c: typeof host.command) => (host.command = c),
  };
  return { host, pluginApi };
}

const asAgent = (a: RegisteredAgent) => ({ Authorization: `Bearer ${a.api_key}` });

describe('simmer-automaton plugin against the service #integration', () => {
  let server: http.Server;
  let baseUrl: string;
  const globals = globalThis as { require?: NodeRequire };

  before(async () => {
    server = http.createServer(testContext().app);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await new Promise((r) => server.close(r));
  });

  it('when the plugin runs two cycles, is halted and resumed, then cycles, skills, outcomes and bandit arms are served', async function () {
    this.timeout(60_000);
    const agent = await registerAgent();
    const [scalper, fader] = await Promise.all([approvedSkill('scalper'), approvedSkill('fader')]);
    const init = await api()
      .post('/api/sdk/automaton/init')
      .set(asAgent(agent))
      .send({ budget_usd: 200, horizon_days: 30 })
      .expect(200);
    assert.equal(init.body.state.initialized, true);
    assert.equal(init.body.state.venue, 'sim');
    // Skills approved by other tests share the registry: this agent's bandit plays its two only.
    const listed = (await api().get('/api/sdk/automaton/skills').set(asAgent(agent)).expect(200)).body.skills;
    for (const { id } of listed as { id: string }[])
      if (id !== scalper && id !== fader)
        await api().post(`/api/sdk/automaton/skills/${id}/disable`).set(asAgent(agent)).expect(200);

    // Its host loads plugins with a CommonJS-capable loader: the published code calls a bare
    // `require("fs")` to read local skill versions before every briefing.
    const hadRequire = 'require' in globals;
    globals.require = createRequire(import.meta.url);
    const savedKey = process.env.SIMMER_API_KEY;
    delete process.env.SIMMER_API_KEY; // the plugin prefers it to its config
    const { host, pluginApi } = standInHost(agent.api_key, baseUrl);
    try {
      const { default: register } = (await import(pathToFileURL(PLUGIN).href)) as {
        default: (p: typeof pluginApi) => void;
      };
      register(pluginApi);
      assert.ok(host.service && host.command, 'the plugin registered its service and its command');

      // A trade of the scalper skill before the first cycle: the first cycle's outcomes reward it.
      const market = await makeMarket();
      const buy = await trade(agent, { market_id: market._id, side: 'yes', amount: 10, skill_slug: scalper });
      assert.equal(buy.body.success, true, JSON.stringify(buy.body));

      await host.service.start(host.ctx);
      const recorded = async () =>
        (await api().get('/api/sdk/automaton/cycles').set(asAgent(agent)).expect(200)).body.total as number;
      await until(recorded, (n) => n >= 2, 20_000);
      await host.service.stop(host.ctx);
      await new Promise((r) => setTimeout(r, CYCLE_MS)); // a cycle already under way ends its calls

      const logText = host.log.join('\n');
      console.error(`--- plugin log ---\n${logText}\n------------------`);
      assert.match(logText, /Cycle 1 \| tier=\w+ \| ε=[\d.]+ \| selected=2 skills/);
      assert.match(logText, /Cycle 2 \| tier=\w+/);
      assert.match(logText, new RegExp(`Outcomes \\(sim\\): ${scalper}:1t/\\$-?[\\d.]+pnl`));
      assert.doesNotMatch(logText, /Failed|error /, 'no call of the plugin failed');
      assert.equal(host.ran.length, 0, 'skills without an entrypoint are selected, not executed');

      // Cycles as recorded: the skills the bandit selected, and each cycle's outcomes.
      const cycles = (await api().get('/api/sdk/automaton/cycles').set(asAgent(agent)).expect(200)).body;
      const first = cycles.cycles.find((c: { cycle_num: number }) => c.cycle_num === 1);
      assert.deepEqual(
        first.selected_skills.map((s: { slug: string }) => s.slug).sort(),
        [fader, scalper].sort(),
      );
      assert.ok(first.selected_skills.every((s: { reason: string }) => s.reason === 'unplayed'));
      const latest = cycles.cycles[0];
      const after = await trade(agent, {
        market_id: market._id,
        side: 'yes',
        amount: 5,
        skill_slug: scalper,
      });
      assert.equal(after.body.success, true);
      const again = (await api().get('/api/sdk/automaton/cycles').set(asAgent(agent)).expect(200)).body;
      const scalperInLatest = again.cycles
        .find((c: { id: number }) => c.id === latest.id)
        .outcomes.find((o: { skill_slug: string }) => o.skill_slug === scalper);
      assert.equal(scalperInLatest.trades, 1, 'the latest cycle owns the trades made since it');
      assert.equal(scalperInLatest.total_cost, 5);

      // Bandit arms persisted by POST /cycle: both played, the scalper rewarded with its trade.
      const bandit = (await api().get('/api/sdk/automaton/bandit-state').set(asAgent(agent)).expect(200))
        .body;
      assert.ok(bandit.cycle_count >= 2);
      const arm = (slug: string) => bandit.arms.find((a: { slug: string }) => a.slug === slug);
      assert.ok(arm(scalper).timesSelected >= 2 && arm(fader).timesSelected >= 2);
      assert.equal(arm(scalper).tradesExecutedTotal, 1);
      const state = (await api().get('/api/sdk/automaton/state').set(asAgent(agent)).expect(200)).body;
      assert.deepEqual(state.active_skills.sort(), [fader, scalper].sort());
      assert.equal(state.spent_usd, 15);
      assert.equal(state.remaining_usd, 185);

      // Outcomes: per skill since the start.
      const outcomes = (
        await api()
          .get('/api/sdk/automaton/outcomes')
          .query({ since: state.started_at })
          .set(asAgent(agent))
          .expect(200)
      ).body.outcomes;
      assert.deepEqual(
        outcomes.map((o: { skill_slug: string; venue: string; trades: number; total_cost: number }) => [
          o.skill_slug,
          o.venue,
          o.trades,
          o.total_cost,
        ]),
        [[scalper, 'sim', 2, 15]],
      );

      // Halt and resume through the plugin's own command; the prompt context follows.
      const prompt = async () =>
        ((await host.hooks.get('before_prompt_build')!()) as { prependContext: string }).prependContext;
      assert.match((await host.command.handler({ args: 'halt' })).text, /halted/);
      assert.equal((await api().get('/api/sdk/automaton/state').set(asAgent(agent))).body.halted, true);
      assert.match(await prompt(), /HALTED/);
      assert.match((await host.command.handler({ args: 'resume' })).text, /resumed/);
      assert.equal((await api().get('/api/sdk/automaton/state').set(asAgent(agent))).body.halted, false);
      assert.match(await prompt(), /Simmer Automaton — Cycle/);

      // Skills: disable, pin a tunable, history.
      assert.match((await host.command.handler({ args: `disable ${fader}` })).text, /Disabled skill/);
      assert.match((await host.command.handler({ args: `tune ${scalper} MAX_BET 7` })).text, /pinned/);
      const skills = (await api().get('/api/sdk/automaton/skills').set(asAgent(agent)).expect(200)).body
        .skills;
      const skill = (slug: string) => skills.find((s: { id: string }) => s.id === slug);
      assert.equal(skill(fader).enabled, false);
      assert.deepEqual([skill(scalper).config, skill(scalper).pinned], [{ MAX_BET: 7 }, ['MAX_BET']]);
      assert.match(
        (await host.command.handler({ args: 'history' })).text,
        /#1 \| \w+ \| ε=[\d.]+ \| skills=\[/,
      );
      assert.match((await host.command.handler({ args: `reset ${scalper}` })).text, /Reset/);
      const reset = (await api().get('/api/sdk/automaton/skills').set(asAgent(agent))).body.skills;
      const resetScalper = reset.find((s: { id: string }) => s.id === scalper);
      assert.deepEqual([resetScalper.config, resetScalper.pinned], [{}, []]);
      const status = (await host.command.handler({ args: 'status' })).text;
      assert.match(status, /Budget: 200\.00 \$SIM/);
      assert.match(status, /Skills available: \d+/);
      // Its portfolio command reads GET /api/sdk/positions?status=active.
      assert.match((await host.command.handler({ args: 'portfolio' })).text, /Positions \(1\) \| Total P&L/);
    } finally {
      await host.service?.stop(host.ctx);
      if (savedKey !== undefined) process.env.SIMMER_API_KEY = savedKey;
      if (!hadRequire) delete globals.require;
    }
  });

  it('when the automaton is not initialized, then its state says so and its changes answer 409 with a fix', async () => {
    const agent = await registerAgent();
    const state = await api().get('/api/sdk/automaton/state').set(asAgent(agent)).expect(200);
    assert.equal(state.body.initialized, false);
    const res = await api().post('/api/sdk/automaton/halt').set(asAgent(agent)).expect(409);
    assert.match(res.body.fix, /automaton\/init/);
    await api().get('/api/sdk/automaton/bandit-state').set(asAgent(agent)).expect(409);
  });

  it('when an automaton is initialized again, then it restarts running with a forgotten bandit and kept skill preferences', async () => {
    const agent = await registerAgent();
    const slug = await approvedSkill('momentum');
    const init = () =>
      api().post('/api/sdk/automaton/init').set(asAgent(agent)).send({ budget_usd: 50 }).expect(200);
    const first = (await init()).body.state;
    await api().post(`/api/sdk/automaton/skills/${slug}/disable`).set(asAgent(agent)).expect(200);
    await api().post('/api/sdk/automaton/halt').set(asAgent(agent)).expect(200);
    await api()
      .post('/api/sdk/automaton/cycle')
      .set(asAgent(agent))
      .send({ active_skills: [slug], cycle_number: 3, selection_meta: [], config_changes: [], epsilon: 0.1 })
      .expect(200);
    const second = (await init()).body.state;
    assert.notEqual(second.started_at, first.started_at);
    assert.equal(second.halted, false);
    const bandit = (await api().get('/api/sdk/automaton/bandit-state').set(asAgent(agent)).expect(200)).body;
    assert.deepEqual(bandit, { epsilon: 0.2, cycle_count: 0, arms: [] });
    const skills = (await api().get('/api/sdk/automaton/skills').set(asAgent(agent))).body.skills;
    assert.equal(skills.find((s: { id: string }) => s.id === slug).enabled, false);
    await api().post('/api/sdk/automaton/skills/no-such-skill/enable').set(asAgent(agent)).expect(404);
  });
});
