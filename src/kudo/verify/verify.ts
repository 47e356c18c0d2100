/**
 * `package verify`: every check of KUDO's verifier, with KUDO's texts, for a package folder,
 * and the subset that applies to an OperatorVersion on its own (the validating webhook calls
 * that one at `kubectl apply` time: one finding per problem, each with its field).
 */
import type { OperatorVersion } from '../api/index.ts';
import type { PackageDefinition } from '../package/index.ts';
import { Findings, type VerifyResult } from './findings.ts';
import { checkParamStyle, type ParamCheck } from './param-checks.ts';
import { checkParameters } from './parameters.ts';
import { checkNamespaceManifest, checkRendering, type RenderedObjects } from './render.ts';
import { operatorVersionSubject, packageSubject, type VerifySubject } from './subject.ts';
import { checkTasksAndPlans } from './tasks.ts';
import { checkNamespaces, checkTemplates, templateUsages } from './templates.ts';
import { checkVersions } from './versions.ts';

export interface VerifyOptions {
  /** Render every template with placeholder values (default true; executes package templates). */
  readonly render?: boolean | undefined;
  /** `--param-checks`: optional style warnings. */
  readonly paramChecks?: ReadonlySet<ParamCheck> | undefined;
  /** Told the objects each template rendered to (with placeholder values), when it did. */
  readonly onRendered?: RenderedObjects | undefined;
}

function run(subject: VerifySubject, options: VerifyOptions): VerifyResult {
  const out = new Findings();
  checkParameters(subject, out);
  checkVersions(subject, out);
  checkTasksAndPlans(subject, out);
  const usages = templateUsages(subject);
  checkTemplates(subject, usages, out);
  const rendering = options.render ?? true;
  const rendered = rendering ? checkRendering(subject, usages, out, options.onRendered) : undefined;
  checkNamespaces(subject, out, (name) => {
    const text = rendered?.get(name);
    if (text !== undefined) checkNamespaceManifest(name, text, subject, out);
  });
  if (options.paramChecks && options.paramChecks.size > 0)
    checkParamStyle(subject, options.paramChecks, out);
  return out.result();
}

/** All checks of `package verify` for a package read from its files. */
export function verifyPackage(pkg: PackageDefinition, options: VerifyOptions = {}): VerifyResult {
  return run(packageSubject(pkg), options);
}

export interface OperatorVersionVerifyOptions extends VerifyOptions {
  /** The Operator's `spec.namespaceManifest`, when known. */
  readonly namespaceManifest?: string | undefined;
}

/**
 * The checks that apply to an OperatorVersion alone: parameters, versions, tasks (a
 * KudoOperator task must carry a resolved operatorVersion), plans, templates. Package-only
 * checks (kubernetesVersion, kudoVersion, parameter groups) do not apply.
 */
export function verifyOperatorVersion(
  ov: OperatorVersion,
  options: OperatorVersionVerifyOptions = {},
): VerifyResult {
  return run(operatorVersionSubject(ov, { namespaceManifest: options.namespaceManifest }), options);
}
