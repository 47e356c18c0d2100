// `npm test`: the whole suite, as fast as two cores allow, and where its time went.
//
//   checks     typecheck, eslint and prettier, once the first cluster lane has ended
//   builds     `npm run build` (the CLI the tests start), the Go tools each jest group needs
//              (test/support/tools.ts; found at once in a warm cache), Planwright's image
//   jest       lanes, each a jest process as wide as plan.ts says, started as soon as
//              what it needs is built: unit; integration and e2e, their files shared out
//              longest first from the last runs' times (history.ts); a late lane once the
//              unit files are done; integration and e2e workers have a cluster each
//              (test/support/shared-cluster.ts); then the serial files, alone
//   report     every step's and every test file's wall time, then one line of counts
//
// Usage: npm test [-- [--no-checks] [unit|integration|e2e|serial ...]]
import { sharedDataProblem } from '../support/shared.ts';

// Before anything heavy is loaded: without the shared data nothing can run, and the person
// who typed `npm test` learns it in one line at once.
const problem = sharedDataProblem();
if (problem) {
  process.stderr.write(`npm test: ${problem}\n`);
  process.exit(2);
}
const { runTests } = await import('./run.ts');
await runTests(process.argv.slice(2));
