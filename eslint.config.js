// Flat config: typescript-eslint's type-aware rules on src/, test/ and bench/.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

// ARCHITECTURE.md's layer table: what each folder of src/ must not import, and imports across
// layers only through the layer's index.ts (kudo's sub-folders each have one).
// test/unit/architecture.test.ts checks the same on the whole import graph, cycles included.
const FORBIDDEN = {
  kube: ['runtime', 'server', 'kudo', 'localcluster', 'cli', 'app\\.ts'],
  runtime: ['server', 'kudo', 'localcluster', 'cli', 'app\\.ts'],
  server: ['kudo', 'localcluster', 'cli', 'app\\.ts'],
  pki: ['kube', 'runtime', 'server', 'gotemplate', 'kudo', 'localcluster', 'cli', 'app\\.ts'],
  gotemplate: ['kube', 'runtime', 'server', 'pki', 'kudo', 'localcluster', 'cli', 'app\\.ts'],
  kudo: ['localcluster', 'cli', 'app\\.ts'],
  localcluster: ['kudo', 'cli', 'app\\.ts'],
  cli: [],
  app: ['cli'],
};
const LAYERS = Object.keys(FORBIDDEN);
const layerRules = LAYERS.map((layer) => {
  const others = LAYERS.filter((l) => l !== layer && !['kudo', 'cli', 'app'].includes(l));
  const patterns = [
    {
      regex: `^(\\.{1,2}/)+(${others.join('|')})/(?!index\\.ts$)`,
      message: 'Import another layer through its index.ts (ARCHITECTURE.md).',
    },
  ];
  if (layer !== 'kudo')
    patterns.push({
      regex: '^(\\.{1,2}/)+kudo/[^/]+/(?!(.+/)?index\\.ts$)',
      message: 'Import a kudo sub-layer through its index.ts (ARCHITECTURE.md).',
    });
  if (FORBIDDEN[layer].length > 0)
    patterns.push({
      regex: `^(\\.{1,2}/)+(${FORBIDDEN[layer].join('|')})(/|$)`,
      message: `src/${layer}/ must not import ${FORBIDDEN[layer].join(', ').replaceAll('\\', '')} (ARCHITECTURE.md).`,
    });
  return {
    files: layer === 'app' ? ['src/app.ts'] : [`src/${layer}/**/*.ts`],
    rules: { 'no-restricted-imports': ['error', { patterns }] },
  };
});

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'coverage/', 'certs/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/explicit-module-boundary-types': 'error',
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    // More than four positional parameters are hard to read at the call site: pass a context
    // object.
    files: ['src/kudo/**/*.ts'],
    rules: { '@typescript-eslint/max-params': ['error', { max: 4 }] },
  },
  ...layerRules,
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/explicit-module-boundary-types': 'off' },
  },
);
