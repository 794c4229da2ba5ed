/**
 * `npm run deps:report`: every module-boundary rule of .dependency-cruiser.cjs, those that CI enforces
 * (in `npm run lint`) and those that do not hold yet, with each rule's violations; then how many
 * module dependencies cross between the layers and between the domain folders, and the domain
 * folders that import one another in a cycle. Prints; fails if the enforced rules fail, if domain
 * folders import one another in a cycle, or if the cruise itself does. `--folders` checks the folder
 * cycles alone (`npm run deps`, and so `npm run lint`, runs it after dependency-cruiser's rules).
 */
import { execFileSync } from 'node:child_process';

interface Violation {
  from: string;
  to: string;
  rule: { name: string; severity: 'error' | 'warn' | 'info' };
  cycle?: { name: string }[];
}
interface CruiseResult {
  modules: { source: string; dependencies: { resolved: string }[] }[];
  summary: {
    violations: Violation[];
    totalCruised: number;
    totalDependenciesCruised: number;
    ruleSetUsed: { forbidden: { name: string; severity: Violation['rule']['severity'] }[] };
  };
}

// The locally installed CLI (npx would fetch an unrelated package of that name were it missing).
const out = execFileSync(
  'node_modules/.bin/depcruise',
  ['-c', '.dependency-cruiser.cjs', '-T', 'json', 'api', 'workers', 'jobs', 'shared'],
  { env: { ...process.env, DEPS_REPORT: '1' }, maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
);
const result = JSON.parse(out) as CruiseResult;

const foldersOnly = process.argv.includes('--folders');
/** The rules' and counts' lines, left out when only the folder cycles are checked. */
const report = foldersOnly ? () => undefined : console.log;

const byRule = new Map<string, Violation[]>();
for (const rule of result.summary.ruleSetUsed.forbidden) byRule.set(rule.name, []);
for (const v of result.summary.violations) byRule.get(v.rule.name)!.push(v);

const severity = new Map(result.summary.ruleSetUsed.forbidden.map((r) => [r.name, r.severity]));
const judged = [...byRule].filter(([name]) => severity.get(name) !== 'info');
for (const [name, vs] of judged) {
  report(`\n${name} (${severity.get(name) === 'error' ? 'enforced' : 'not enforced yet'}): ${vs.length}`);
  for (const v of vs) {
    const via = v.cycle ? `  (cycle: ${v.cycle.map((c) => c.name).join(' → ')})` : '';
    report(`  ${v.from} → ${v.to}${via}`);
  }
}
const errors = judged.filter(([name, vs]) => severity.get(name) === 'error' && vs.length);

report(
  `\n${result.summary.totalCruised} modules, ${result.summary.totalDependenciesCruised} dependencies cruised`,
);
report(`module dependencies across layers: ${byRule.get('count-cross-layer')?.length ?? 0}`);
report(`module dependencies across domain folders: ${byRule.get('count-cross-domain-folder')?.length ?? 0}`);

// Folder-level cycles (rule a at folder granularity): strongly connected domain folders. Each venue's
// folder counts as a folder of its own, and so does the venues' public surface (rule b). A schema
// (`*.model.ts`) belongs to the schemas layer below every folder, not to the folder it sits in
// (.dependency-cruiser.cjs, LAYERS): importing another folder's schema imports no folder.
const isSchema = (path: string) => path.endsWith('.model.ts');
const folder = (path: string) =>
  isSchema(path)
    ? undefined
    : (/^shared\/domains\/(venues\/[^/]+)\//.exec(path)?.[1] ??
      (/^shared\/domains\/venues\/[^/]+$/.test(path)
        ? 'venues'
        : /^shared\/domains\/([^/]+)\//.exec(path)?.[1]));
const graph = new Map<string, Set<string>>();
for (const m of result.modules) {
  const a = folder(m.source);
  if (!a) continue;
  for (const d of m.dependencies) {
    const b = folder(d.resolved);
    if (b && b !== a) graph.set(a, (graph.get(a) ?? new Set()).add(b));
  }
}
let index = 0;
const stack: string[] = [];
const seen = new Map<string, { index: number; low: number; onStack: boolean }>();
const components: string[][] = [];
function connect(v: string) {
  const sv = { index, low: index++, onStack: true };
  seen.set(v, sv);
  stack.push(v);
  for (const w of graph.get(v) ?? []) {
    const sw = seen.get(w);
    if (!sw) {
      connect(w);
      sv.low = Math.min(sv.low, seen.get(w)!.low);
    } else if (sw.onStack) sv.low = Math.min(sv.low, sw.index);
  }
  if (sv.low === sv.index) {
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      seen.get(w)!.onStack = false;
      component.push(w);
    } while (w !== v);
    if (component.length > 1) components.push(component.sort());
  }
}
for (const v of graph.keys()) if (!seen.has(v)) connect(v);
const component = new Map(components.flatMap((c, i) => c.map((name) => [name, i] as const)));
const cyclic = new Map<string, number>();
for (const m of result.modules) {
  const a = folder(m.source);
  for (const d of m.dependencies) {
    const b = folder(d.resolved);
    if (!a || !b || a === b || component.get(a) === undefined || component.get(a) !== component.get(b))
      continue;
    cyclic.set(`${a} → ${b}`, (cyclic.get(`${a} → ${b}`) ?? 0) + 1);
  }
}
console.log(
  `\ndomain folders that import one another in a cycle (rule a between folders, enforced by npm run deps): ` +
    `${components.map((c) => c.join(', ')).join(' | ') || 'none'}; ` +
    `${cyclic.size} folder-to-folder imports, ${[...cyclic.values()].reduce((s, n) => s + n, 0)} module dependencies:`,
);
for (const [edge, n] of [...cyclic].sort()) console.log(`  ${edge}: ${n}`);

if (errors.length || components.length) process.exitCode = 1;
