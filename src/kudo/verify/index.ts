/** `package verify` for package folders and OperatorVersion objects. */
export { Findings, type Finding, type Severity, type VerifyResult } from './findings.ts';
export { PARAM_CHECKS, parseParamChecks, type ParamCheck } from './param-checks.ts';
export { IMPLICIT_FIELDS } from './templates.ts';
export { kubernetesYamlProblem } from './render.ts';
export {
  INLINE_MAX_VERIFY_CHARS,
  RoutingVerifier,
  verifiesInline,
  type WorkerVerifier,
} from './routing.ts';
export { taskBuildProblems } from './tasks.ts';
export { templateUsage, type TemplateUsage } from './template-usage.ts';
export {
  verifyOperatorVersion,
  verifyPackage,
  type OperatorVersionVerifyOptions,
  type VerifyOptions,
} from './verify.ts';
