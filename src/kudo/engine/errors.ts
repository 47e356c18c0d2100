/** Errors of the plan engine, each naming the Instance and what to do. */

/** The Instance's OperatorVersion does not exist (yet). */
export class OperatorVersionMissingError extends Error {
  override readonly name = 'OperatorVersionMissingError';
  constructor(
    readonly instance: string,
    readonly operatorVersion: string,
  ) {
    super(
      `Instance ${instance}: OperatorVersion ${operatorVersion} does not exist; create it (kubectl apply the package) or point spec.operatorVersion at an existing one`,
    );
  }
}
