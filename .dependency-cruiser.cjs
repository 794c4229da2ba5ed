/**
 * Module boundaries that CI checks (`npm run lint` runs `npm run deps`, which fails on any
 * violation of an enforced rule below). `npm run deps:report` also runs the rules that do not hold
 * yet (see PENDING) and prints their violations without failing, plus how many module dependencies
 * cross between layers and between domain folders.
 *
 * Type-only imports count (the TypeScript source is read before compilation): a type pulls a folder
 * into another's vocabulary as much as a value does.
 *
 * Scope: the service's own code, api/, workers/, jobs/ and shared/. Tests, scripts and benches may
 * reach anywhere they need to and are not cruised.
 *
 * dependency-cruiser 17: 18 needs Node 22, and the service runs on Node 20 (engines, Dockerfile, CI).
 *
 * The layers, lowest first (a layer may import its own layer and any lower one, never a higher
 * one). Worked out from the module graph (`npx depcruise -c .dependency-cruiser.cjs -T json`), not
 * wished for: each layer's folders import only from their own layer or below, apart from the
 * violations that `npm run deps:report` lists.
 *
 *   0 base            shared/infra/, shared/util/ and the scalar modules directly in shared/domains/
 *                     (money.ts, refusal.ts, schema-record.ts, side-price.ts): no domain knowledge.
 *   1 venue surface   the venue-neutral modules directly in shared/domains/venues/ (venue-id.ts,
 *                     external-ids.ts, venue-adapter.ts, venue-registry.ts, …): the venues' public
 *                     surface, the seams every other domain talks to.
 *   2 schemas         every persistence schema (`*.model.ts`) and the model registry
 *                     shared/domains/models.ts: schemas are leaves, and the `Models` registry's type
 *                     is what every domain's functions take.
 *   3 records         the state the money path reads and writes: agents, users, wallets, limits,
 *                     markets, positions, ledger, sequenced-log, webhooks, alerts, skills, research
 *                     (an agent's recorded experiments), system, schedules.
 *   4 trading         shared/domains/trading/: one trade's life, behind the VenueTrading seam.
 *   5 venue adapters  each venue's own folder shared/domains/venues/<venue>/: they implement the
 *                     seams of layers 1 and 4 (a venue's trading code imports trading, never the
 *                     other way round).
 *   6 processes       domains that run over many records and venues: venue-sync, settlement,
 *                     imports, monitors, audit, support, operator, copytrading, fill-feed, reactor.
 *   7 reads           shared/domains/reads/: views assembled from every layer below; and
 *                     shared/domains/automaton/, whose bandit rewards are those reads.
 *   8 entry points    api/, workers/, jobs/.
 *
 * shared/composition/ (the composition root, which builds the `Deps` bag and the venues) is no
 * layer: it may import anything, and nothing in shared/domains/ imports it (rule
 * `domains-not-to-composition`).
 */

/**
 * Each layer's modules, lowest first, as regexes that match its modules and no other layer's: a
 * schema file (`*.model.ts`) in a folder of layers 3–6 belongs to layer 2, not to its folder's layer.
 */
const NOT_A_SCHEMA = '(?!.*\\.model\\.ts$)';
const LAYERS = [
  {
    name: 'base',
    path: ['^shared/(infra|util)/', '^shared/domains/(money|refusal|schema-record|side-price)\\.ts$'],
  },
  { name: 'venue-surface', path: ['^shared/domains/venues/[^/]+\\.ts$'] },
  { name: 'schemas', path: ['^shared/domains/.+\\.model\\.ts$', '^shared/domains/models\\.ts$'] },
  {
    name: 'records',
    path: [
      `^shared/domains/(agents|users|wallets|limits|markets|positions|ledger|sequenced-log|webhooks|alerts|skills|research|system|schedules)/${NOT_A_SCHEMA}`,
    ],
  },
  { name: 'trading', path: [`^shared/domains/trading/${NOT_A_SCHEMA}`] },
  { name: 'venue-adapters', path: [`^shared/domains/venues/[^/]+/${NOT_A_SCHEMA}`] },
  {
    name: 'processes',
    path: [
      `^shared/domains/(venue-sync|settlement|imports|monitors|audit|support|operator|copytrading|fill-feed|reactor)/${NOT_A_SCHEMA}`,
    ],
  },
  { name: 'reads', path: [`^shared/domains/(reads|automaton)/${NOT_A_SCHEMA}`] },
  { name: 'entry-points', path: ['^(api|workers|jobs)/'] },
];

/**
 * f. A lower layer never imports a higher one: one rule per layer, named after it, so that each
 * layer that holds is enforced on its own while another does not hold yet.
 */
const layerRule = (name) => {
  const i = LAYERS.findIndex((layer) => layer.name === name);
  return {
    name: `layer-${name}`,
    comment:
      `f. Layer ${i} (${name}) imports only its own layer or lower ones: a lower layer that reaches ` +
      'up makes the layers one tangle, where a change anywhere can break anything.',
    severity: 'error',
    from: { path: LAYERS[i].path },
    to: { path: LAYERS.slice(i + 1).flatMap((layer) => layer.path) },
  };
};

/** Rules that hold today with no violation: `npm run lint` fails on any new one. */
const ENFORCED = [
  {
    name: 'no-circular-between-domains',
    comment:
      'a. No import cycle runs through two domain folders: a cycle makes the two one domain, neither ' +
      'can be understood, tested or changed alone. This is the cycle of modules; folders that import ' +
      'one another through different modules (a→b here, b→a there) are checked by ' +
      'scripts/deps-report.ts --folders, which `npm run deps` runs after these rules (a schema counts ' +
      'in the schemas layer, not in its folder).',
    severity: 'error',
    from: { path: '^shared/domains/([^/]+)/' },
    to: { path: '^shared/domains/', pathNot: '^shared/domains/$1/', circular: true },
  },
  {
    name: 'api-not-to-jobs',
    comment:
      'c. The API never imports jobs/: jobs/ is a process of its own (the scheduler); what both need ' +
      '(the schedule table) lives in shared/.',
    severity: 'error',
    from: { path: '^api/' },
    to: { path: '^jobs/' },
  },
  {
    name: 'trading-not-to-venue-folders',
    comment:
      "e. Trading reaches a venue only through the venue-neutral seams (VenueTrading, the adapters' " +
      "registry): a venue's own code plugs into trading, so trading never imports a venue's folder.",
    severity: 'error',
    from: { path: '^shared/domains/trading/' },
    to: { path: '^shared/domains/venues/[^/]+/' },
  },
  {
    name: 'venue-internals-private',
    comment:
      "b. A venue's folder (shared/domains/venues/<venue>/) is its own business: outside venues/, code " +
      'imports only the venue-neutral modules directly in shared/domains/venues/ (their public ' +
      'surface) and reaches a venue through its seams (VenueAdapter, VenueTrading). The composition ' +
      'root builds the venues, so it may import them.',
    severity: 'error',
    from: {
      path: '^(api|workers|jobs|shared)/',
      pathNot: ['^shared/domains/venues/', '^shared/composition/'],
    },
    to: { path: '^shared/domains/venues/[^/]+/' },
  },
  {
    name: 'domains-not-to-composition',
    comment:
      'd. Domain code never imports the composition root: a domain that took the whole `Deps` bag ' +
      'depended on every other domain and on process wiring. Each module declares the narrow part ' +
      'of the process it uses (InfraDeps handles, models, venues, caches), which the root satisfies.',
    severity: 'error',
    from: { path: '^shared/domains/' },
    to: { path: '^shared/composition/' },
  },
  // f, for every layer.
  ...['base', 'venue-surface', 'schemas', 'records', 'trading', 'venue-adapters', 'processes', 'reads'].map(
    layerRule,
  ),
];

/**
 * Rules that do not hold yet (the number above each: its violations as of this commit). They are
 * not in `npm run lint`: `npm run deps:report` prints their violations as warnings. Move a rule to
 * ENFORCED once it has none.
 */
const PENDING = [];

/**
 * Counted, not judged (`npm run deps:report` sums them): module dependencies that cross from one
 * layer to another (the composition root, in no layer, is not counted), and from one folder of
 * shared/domains/ to another.
 */
const COUNTS = [
  ...LAYERS.map((layer, i) => ({
    name: 'count-cross-layer',
    comment: `Counts the dependencies of layer ${i} (${layer.name}) on another layer.`,
    severity: 'info',
    from: { path: layer.path },
    to: { path: LAYERS.filter((_, j) => j !== i).flatMap((other) => other.path) },
  })),
  {
    name: 'count-cross-domain-folder',
    comment: 'Counts the dependencies of one folder of shared/domains/ on another.',
    severity: 'info',
    from: { path: '^shared/domains/([^/]+)/' },
    to: { path: '^shared/domains/[^/]+/', pathNot: '^shared/domains/$1/' },
  },
];

/** What is cruised and how it is resolved. */
const options = {
  doNotFollow: { path: 'node_modules' },
  exclude: { path: ['^node_modules/', '^(test|scripts|bench)/', '^dist/'] },
  tsPreCompilationDeps: true,
  tsConfig: { fileName: 'tsconfig.json' },
  enhancedResolveOptions: {
    exportsFields: ['exports'],
    conditionNames: ['import', 'require', 'node', 'default', 'types'],
    mainFields: ['module', 'main', 'types', 'typings'],
  },
};

// `npm run deps:report` sets DEPS_REPORT=1: every rule, the pending ones as warnings, and the counts.
module.exports = {
  forbidden: process.env.DEPS_REPORT ? [...ENFORCED, ...PENDING, ...COUNTS] : ENFORCED,
  options,
};
