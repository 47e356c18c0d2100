/** Instance admission: the decision (pure) and the webhook handler around it. */
export { decide } from './decide.ts';
export type { AdmissionUser, Decision, DecisionDeps, DecisionInput, Scheduled } from './types.ts';
