// Prints one plain closing line, "N passed, N failed, N skipped", after jest's own summary and
// on the same stream (stderr, so the two stay in order): CI logs then state the result in a
// form any reader or tool understands.
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    const failedSuites = results.numRuntimeErrorTestSuites;
    process.stderr.write(
      `\n${results.numPassedTests} passed, ${results.numFailedTests + failedSuites} failed, ${skipped} skipped\n`,
    );
  }
}
