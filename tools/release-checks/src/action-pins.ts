/**
 * Every `uses:` of a workflow that is not pinned to a full commit SHA with its version beside it
 * (`owner/repo@<40 hex> # v1.2.3`). A tag such as `@v6` can be moved to other code by whoever
 * controls the action's repository; a SHA cannot, and the comment is what Dependabot updates
 * with it. Local actions and reusable workflows of this repository (`./…`) are ours.
 */
export function unpinnedUses(workflow: string): string[] {
  const findings: string[] = [];
  workflow.split('\n').forEach((line, index) => {
    const match = /^\s*(?:-\s+)?uses:\s*(\S+)\s*(.*)$/.exec(line);
    if (match === null) return;
    const [, ref = '', comment = ''] = match;
    if (ref.startsWith('./')) return;
    const pinned = /^[\w.-]+\/[\w./-]+@[0-9a-f]{40}$/.test(ref) && /^#\s*v\d+\.\d+\.\d+\b/.test(comment);
    if (!pinned) findings.push(`line ${index + 1}: ${ref} ${comment}`.trim());
  });
  return findings;
}
