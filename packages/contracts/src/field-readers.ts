import type { FieldRule } from './field-rules.js';
import { isoTimestampRule } from './field-rules.js';
import { isRecord } from './normalize-key.js';
import { timestampToDate } from './timestamp-to-date.js';
import { describe } from './validation-check.js';
import type { WebhookIssue } from './webhook-types.js';

/** A path to a field in a webhook body, as issues report it. */
export type Path = readonly (string | number)[];

/**
 * The issues found so far. A field's path is built only when an issue is reported: a body
 * without issues (what the service sends) allocates no path at all.
 */
export class IssueList {
  readonly items: WebhookIssue[] = [];
  add(path: Path, message: string): void {
    this.items.push({ path, message });
  }
  /** An issue at top-level field `name`, or at `name` inside `group`. */
  at(group: string | undefined, name: string, message: string): void {
    this.items.push({ path: group === undefined ? [name] : [group, name], message });
  }
}

/** Reads one field: the typed value, or an issue and nothing. */
export function readWith<T>(
  rule: FieldRule<T>,
  found: unknown,
  issues: IssueList,
  group: string | undefined,
  name: string,
): T | undefined {
  if (found === undefined) return undefined;
  if (rule.is(found)) return found;
  issues.at(group, name, `expected ${rule.expected} (got ${describe(found)})`);
  return undefined;
}

/** Enum values are matched exactly; a different casing is accepted and reported, never silently. */
export function readEnum<T extends string>(
  values: readonly T[],
  found: unknown,
  issues: IssueList,
  name: string,
): T | undefined {
  if (found === undefined) return undefined;
  const value = found;
  if (typeof value === 'string') {
    if ((values as readonly string[]).includes(value)) return value as T;
    const upper = value.toUpperCase();
    const match = values.find((candidate) => candidate === upper);
    if (match !== undefined) {
      issues.at(undefined, name, `"${value}" read as "${match}"; the service sends upper case`);
      return match;
    }
  }
  const shown = typeof value === 'string' ? `"${value.slice(0, 40)}"` : describe(value);
  issues.at(undefined, name, `expected one of ${values.join(', ')}, got ${shown}`);
  return undefined;
}

/** A timestamp field: its text and its `Date`, or nothing (and an issue when it was malformed). */
export function readTimestamp(
  found: unknown,
  issues: IssueList,
  name: string,
): { iso: string; date: Date } | undefined {
  const iso = readWith(isoTimestampRule, found, issues, undefined, name);
  return iso === undefined ? undefined : { iso, date: timestampToDate(iso) };
}

export function readGroup(found: unknown, issues: IssueList, name: string): Record<string, unknown> | undefined {
  if (found === undefined) return undefined;
  if (isRecord(found)) return found;
  issues.at(undefined, name, `expected an object, got ${describe(found)}`);
  return undefined;
}

export function reportMissing(
  names: readonly string[],
  found: Readonly<Record<string, unknown>>,
  issues: IssueList,
  group?: string,
): void {
  for (const name of names) if (found[name] === undefined) issues.at(group, name, 'missing');
}

export function duplicateReporter(issues: IssueList, group?: string) {
  return (field: string, ignoredKey: string) =>
    issues.at(group, field, `also present as "${ignoredKey}"; that spelling was ignored`);
}
