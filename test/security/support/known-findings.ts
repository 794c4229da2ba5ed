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

// Emptied as the fixes landed: /metrics behind the operator token (6341d36), sort keys checked as own
// properties (fa1ad2a). An entry looks like:
//   { id: 'metrics-public', finding: 'issue 16 finding 10: /metrics is public', matches: (f) => f.route === 'metrics' }
export const KNOWN_FINDINGS: KnownFinding[] = [];

export const knownFindingOf = (f: CaseFailure) => KNOWN_FINDINGS.find((k) => k.matches(f));
