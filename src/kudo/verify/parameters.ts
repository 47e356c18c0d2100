/**
 * Parameter checks of `package verify`: names, immutability, enums, defaults, groups, the UI
 * `advanced` flag and the plans parameters trigger. Texts are KUDO's.
 */
import { PARAMETER_VALUE_TYPES } from '../api/index.ts';
import type { Findings } from './findings.ts';
import type { VerifySubject } from './subject.ts';
import { isKnownType, valueTypeProblem } from './value-types.ts';

const INVALID_NAME_CHARS = ';,';

function goList(values: readonly string[]): string {
  return `[${values.join(' ')}]`;
}

export function checkParameters(s: VerifySubject, out: Findings): void {
  const seen = new Set<string>();
  s.parameters.forEach((p, i) => {
    const at = s.field.parameter(i);
    const q = JSON.stringify(p.name);
    const lower = p.name.toLowerCase();
    if (seen.has(lower)) out.error(`parameter ${q} has a duplicate`, at);
    seen.add(lower);
    for (const ch of lower) {
      if (INVALID_NAME_CHARS.includes(ch))
        out.error(`parameter ${q} contains invalid character '${ch}'`, at);
    }
    if (!isKnownType(p.type)) {
      out.error(
        `parameter ${q} has an unknown type ${JSON.stringify(p.type)}; use one of ${PARAMETER_VALUE_TYPES.join(', ')}`,
        s.field.parameter(i, 'type'),
      );
    }
    if (p.immutable && p.default === undefined && !p.required) {
      out.error(
        `parameter ${q} is immutable but is not marked as required or has a default value`,
        at,
      );
    }
    if (p.enum !== undefined) {
      if (p.enum.length === 0)
        out.error(
          `parameter ${q} is an enum but has no allowed values`,
          s.field.parameter(i, 'enum'),
        );
      for (const value of p.enum) {
        const problem = valueTypeProblem(p.type, value);
        if (problem)
          out.error(
            `parameter ${q} has an invalid enum value: ${problem}`,
            s.field.parameter(i, 'enum'),
          );
      }
    }
    if (p.default !== undefined) {
      const problem = valueTypeProblem(p.type, p.default);
      if (problem) {
        out.error(
          `parameter ${q} has an invalid default value: ${problem}`,
          s.field.parameter(i, 'default'),
        );
      } else if (p.enum !== undefined && p.enum.length > 0 && !p.enum.includes(p.default)) {
        out.error(
          `parameter ${q} has an invalid default value: value is ${JSON.stringify(p.default)}, but only allowed values are ${goList(p.enum)}`,
          s.field.parameter(i, 'default'),
        );
      }
    }
    if (p.trigger && !Object.hasOwn(s.plans, p.trigger)) {
      out.error(
        `plan ${JSON.stringify(p.trigger)} used in parameter ${q} is not defined`,
        s.field.parameter(i, 'trigger'),
      );
    }
  });
  checkGroups(s, out);
}

function checkGroups(s: VerifySubject, out: Findings): void {
  const groups = new Set<string>();
  s.groups.forEach((g, i) => {
    const q = JSON.stringify(g.name);
    if (g.name.includes('/'))
      out.error(`parameter group ${q} contains invalid character '/'`, s.field.group(i));
    if (groups.has(g.name)) out.error(`parameter group ${q} is duplicated`, s.field.group(i));
    groups.add(g.name);
  });
  s.parameters.forEach((p, i) => {
    const q = JSON.stringify(p.name);
    if (p.group) {
      if (p.group.includes('/'))
        out.error(
          `parameter ${q} has a group with invalid character '/'`,
          s.field.parameter(i, 'group'),
        );
      if (!groups.has(p.group)) {
        out.error(
          `parameter ${q} has a group ${JSON.stringify(p.group)} that is not defined in the group section`,
          s.field.parameter(i, 'group'),
        );
      }
    }
    if (p.advanced && p.default === undefined && p.required) {
      out.error(
        `parameter ${q} is marked as advanced, but also as required and has no default. An advanced parameter must either be optional or have a default value`,
        s.field.parameter(i, 'advanced'),
      );
    }
  });
}
