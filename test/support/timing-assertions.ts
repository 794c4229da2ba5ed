import ts from 'typescript';

/**
 * Finds assertions on the wall clock in a test's source: a test that asserts how long something
 * took fails on a slow or busy machine although nothing is wrong (architecture.md §8: speed belongs
 * in bench/). Waits are fine (a loop until a deadline, a helper's timeout, mocha's timeout); what is
 * found is a clock measurement inside an assertion: the arguments of `assert…(…)`/`expect(…)`, and
 * the condition of an `if` that throws.
 *
 * Values are followed through the file's variables (by symbol, so scopes are told apart): a clock
 * reading (`Date.now()`, `performance.now()`, `process.hrtime…`, `process.uptime()`, `new Date()`) is
 * an instant, and so is an instant moved or scaled by anything; an instant less another instant (or
 * less a value that is not a constant: another reading, a timestamp) is a measured duration, and
 * so is a duration scaled or rounded.
 *
 * In an assertion, a comparison (<, <=, >, >=) is found when
 *  - a measured duration is compared with a number or another duration (`exitSeconds < 12`);
 *  - it bounds the clock from above (`Date.now() <= started + 5000`: a reading on the smaller side,
 *    an earlier instant on the larger), a duration written as two instants;
 *  - a variable named as a duration (`elapsed…`, `…duration…`, `took…`, `latency…`, `…Ms`,
 *    `…Seconds`, `…Secs`, `…Millis`) is compared with a number: how it was measured is not visible
 *    here (a helper's result), its name says what it holds. A value the service answers (a
 *    Retry-After, a TTL) is named for what it is, not as a measured time.
 * A bound that slowness can only satisfy more (a timestamp between readings taken before and after
 * the request) is not a duration compared with a number, and is not found.
 */

const COMPARISONS = new Set([
  ts.SyntaxKind.LessThanToken,
  ts.SyntaxKind.LessThanEqualsToken,
  ts.SyntaxKind.GreaterThanToken,
  ts.SyntaxKind.GreaterThanEqualsToken,
]);
const CLOCK_CALLS = /^(Date\.now|performance\.now|process\.hrtime|process\.hrtime\.bigint|process\.uptime)$/;
const DURATION_NAME =
  /^(elapsed|duration|took|latency)|(Elapsed|Duration|Took|Latency)|[a-z](Ms|Millis|Seconds|Secs)$/;
const ASSERTING_CALL = /(^|\.)(assert|expect)(\.\w+)?$/;
/** Calls that keep what their argument is (a rounded instant is an instant). */
const KEEPING_CALLS = /^(Math\.(floor|ceil|round|trunc|abs)|Number|BigInt)$/;

export interface TimingAssertion {
  line: number;
  text: string;
  why: string;
}

type TimeKind = 'instant' | 'duration' | null;

const unwrap = (n: ts.Node): ts.Node =>
  ts.isParenthesizedExpression(n) || ts.isAsExpression(n) || ts.isNonNullExpression(n)
    ? unwrap(n.expression)
    : n;

/** A number that does not depend on the clock: literals, UPPER_CASE constants, and arithmetic of them. */
function isConstant(node: ts.Node): boolean {
  const n = unwrap(node);
  if (ts.isNumericLiteral(n) || ts.isBigIntLiteral(n)) return true;
  if (ts.isIdentifier(n)) return /^[A-Z][A-Z0-9_]*$/.test(n.text);
  if (ts.isPrefixUnaryExpression(n)) return isConstant(n.operand);
  if (ts.isBinaryExpression(n)) return isConstant(n.left) && isConstant(n.right);
  return false;
}

const contains = (n: ts.Node, test: (n: ts.Node) => boolean): boolean =>
  test(n) || (ts.forEachChild(n, (c) => (contains(c, test) ? true : undefined)) ?? false);

/** One file parsed and bound (no types, no imports): enough to tell which declaration a name means. */
function bind(fileName: string, text: string) {
  const options: ts.CompilerOptions = { noLib: true, noResolve: true, types: [], allowJs: false };
  const host = ts.createCompilerHost(options);
  const src = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  host.getSourceFile = (name) => (name === fileName ? src : undefined);
  host.fileExists = (name) => name === fileName;
  host.readFile = (name) => (name === fileName ? text : undefined);
  const checker = ts.createProgram([fileName], options, host).getTypeChecker();
  return { src, symbolOf: (n: ts.Node) => checker.getSymbolAtLocation(n) };
}

export function findTimingAssertions(fileName: string, text: string): TimingAssertion[] {
  const { src, symbolOf } = bind(fileName, text);
  const held = new Map<ts.Symbol, TimeKind>();
  const isClockRead = (n: ts.Node) =>
    (ts.isCallExpression(n) && CLOCK_CALLS.test(n.expression.getText(src))) ||
    (ts.isNewExpression(n) && n.expression.getText(src) === 'Date' && (n.arguments?.length ?? 0) === 0);

  /** What an expression's value is in time: an instant, a measured duration, or neither. */
  const kind = (node: ts.Node): TimeKind => {
    const n = unwrap(node);
    if (isClockRead(n)) return 'instant';
    if (ts.isIdentifier(n)) {
      const symbol = symbolOf(n);
      return (symbol && held.get(symbol)) ?? null;
    }
    if (ts.isNewExpression(n) && n.expression.getText(src) === 'Date' && n.arguments?.length === 1)
      return kind(n.arguments[0]!) === 'instant' ? 'instant' : null;
    if (ts.isCallExpression(n)) {
      const callee = n.expression;
      if (ts.isPropertyAccessExpression(callee) && /^(getTime|valueOf)$/.test(callee.name.text))
        return kind(callee.expression);
      if (KEEPING_CALLS.test(callee.getText(src)) && n.arguments.length === 1) return kind(n.arguments[0]!);
      return null;
    }
    if (!ts.isBinaryExpression(n)) return null;
    const [l, r] = [kind(n.left), kind(n.right)];
    switch (n.operatorToken.kind) {
      case ts.SyntaxKind.MinusToken:
        if (l === 'duration' || r === 'duration') return 'duration';
        if (l === 'instant' && r === 'instant') return 'duration';
        // An instant less a constant is an instant; less anything else (a timestamp), a duration.
        if (l === 'instant') return isConstant(n.right) ? 'instant' : 'duration';
        if (r === 'instant') return isConstant(n.left) ? null : 'duration';
        return null;
      case ts.SyntaxKind.PlusToken:
        return l === 'instant' || r === 'instant'
          ? 'instant'
          : l === 'duration' || r === 'duration'
            ? 'duration'
            : null;
      case ts.SyntaxKind.AsteriskToken:
      case ts.SyntaxKind.SlashToken:
        return l ?? r;
      default:
        return null;
    }
  };

  // What each variable holds, in source order.
  const learn = (n: ts.Node) => {
    const hold = (name: ts.Node, value: ts.Node) => {
      const symbol = ts.isIdentifier(name) ? symbolOf(name) : undefined;
      const k = kind(value);
      if (symbol && k) held.set(symbol, k);
    };
    if (ts.isVariableDeclaration(n) && n.initializer) hold(n.name, n.initializer);
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.EqualsToken) hold(n.left, n.right);
    ts.forEachChild(n, learn);
  };
  learn(src);

  const found: TimingAssertion[] = [];
  const report = (n: ts.Node, why: string) =>
    found.push({
      line: src.getLineAndCharacterOfPosition(n.getStart(src)).line + 1,
      text: n.getText(src).replace(/\s+/g, ' '),
      why,
    });
  const durationNamed = (n: ts.Node) => {
    const u = unwrap(n);
    return ts.isIdentifier(u) && DURATION_NAME.test(u.text);
  };
  const checkComparison = (c: ts.BinaryExpression) => {
    const lessThan = [ts.SyntaxKind.LessThanToken, ts.SyntaxKind.LessThanEqualsToken].includes(
      c.operatorToken.kind,
    );
    const [smaller, larger] = lessThan ? [c.left, c.right] : [c.right, c.left];
    const [l, r] = [kind(c.left), kind(c.right)];
    const numberLike = (side: ts.Node, k: TimeKind) => isConstant(side) || k === 'duration';
    if ((l === 'duration' && numberLike(c.right, r)) || (r === 'duration' && numberLike(c.left, l)))
      report(c, 'a measured duration compared with a number');
    else if (contains(smaller, isClockRead) && kind(larger) === 'instant' && !contains(larger, isClockRead))
      report(c, 'the clock bounded from above (a duration written as two instants)');
    else if ((durationNamed(c.left) && isConstant(c.right)) || (durationNamed(c.right) && isConstant(c.left)))
      report(c, 'a duration-named value compared with a number');
  };
  const inAssertion = (n: ts.Node) => {
    if (ts.isBinaryExpression(n) && COMPARISONS.has(n.operatorToken.kind)) checkComparison(n);
    ts.forEachChild(n, inAssertion);
  };
  const throws = (n: ts.Node) => contains(n, (c) => ts.isThrowStatement(c));
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n) && ASSERTING_CALL.test(n.expression.getText(src))) {
      n.arguments.forEach(inAssertion);
      return;
    }
    if (ts.isIfStatement(n) && throws(n.thenStatement)) inAssertion(n.expression);
    ts.forEachChild(n, visit);
  };
  visit(src);
  return found;
}
