// `npm run image:build -- --registry 127.0.0.1:<port> [--tag planwright:dev]`: builds
// Planwright's image without a docker daemon (src/cli/image.ts) and pushes it to a registry —
// the local cluster's, whose address `npm start -- --nodes real` prints.
import { parseArgs } from 'node:util';
import { DEFAULT_IMAGE, pushPlanwrightImage } from './image.ts';

const { values } = parseArgs({
  options: {
    registry: { type: 'string' },
    tag: { type: 'string', default: DEFAULT_IMAGE },
  },
});
if (!values.registry) {
  process.stderr.write(
    'error: --registry <host:port> is required: the local cluster prints its registry ' +
      '(`npm start -- --nodes real`, line "nodes:")\n',
  );
  process.exit(2);
}
const started = Date.now();
const pushed = await pushPlanwrightImage({ registry: values.registry, reference: values.tag });
process.stdout.write(
  `pushed ${pushed.reference} to ${values.registry} (${(pushed.bytes / 1024 / 1024).toFixed(1)} MiB ` +
    `uncompressed, ${((Date.now() - started) / 1000).toFixed(1)} s)\n`,
);
