// Flat config: typescript-eslint's type-aware rules on src/, test/ and bench/.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

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
    // object. The files listed under `ignores` are being reworked on other branches; they go
    // from the list as those land.
    files: ['src/kudo/**/*.ts'],
    ignores: [
      'src/kudo/package/reader.ts',
      'src/kudo/tasks/objects.ts',
      'src/kudo/tasks/dependencies-hash/go-yaml.ts',
    ],
    rules: { '@typescript-eslint/max-params': ['error', { max: 4 }] },
  },
  {
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/explicit-module-boundary-types': 'off' },
  },
);
