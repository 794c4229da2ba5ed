/**
 * Findings that are being fixed elsewhere (issue 16, "Fixes 3–10") and that the attack suite
 * reproduces. A case matching one is run as usual, but its failure is reported as an expected
 * failure (pending) instead of failing the suite; once the fix lands the case passes and the entry
 * should be removed, so that the suite guards the fix from then on.
 */
export interface CaseFailure {
  category: string;
  route: string;
  label: string;
  problem: string;
}

export interface KnownFinding {
  id: string;
  finding: string;
  matches: (f: CaseFailure) => boolean;
}

export const KNOWN_FINDINGS: KnownFinding[] = [
  {
    id: 'metrics-public',
    finding: 'issue 16 finding 10: /metrics is public (to go behind the operator token)',
    matches: (f) => f.route === 'metrics',
  },
  {
    id: 'sort-prototype-key',
    finding:
      'issue 16 finding 5: sort=<Object.prototype name> answers 500 (sort keys to be own-property checked)',
    matches: (f) =>
      /^(listMarkets|fastMarkets)$/.test(f.route) && /sort=(constructor|__proto__|toString)/.test(f.label),
  },
];

export const knownFindingOf = (f: CaseFailure) => KNOWN_FINDINGS.find((k) => k.matches(f));
