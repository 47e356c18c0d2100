/** Real nodes cannot be set up here (no root, no apt, the kernel refuses a bridge, …). */
export class NodeSetupError extends Error {
  override readonly name = 'NodeSetupError';
  constructor(
    message: string,
    /** Output of the command that failed, when one did. */
    readonly output?: string,
  ) {
    super(output ? `${message}\n${output.trimEnd().split('\n').slice(-15).join('\n')}` : message);
  }
}
