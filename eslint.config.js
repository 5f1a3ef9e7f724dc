// ESLint: typescript-eslint's recommended type-checked set over the TypeScript sources, tests, benchmarks and
// the inspector. Formatting is not ESLint's job here. Runs in `npm test` (`npm run lint`).
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '**/*.js', '**/*.mjs', 'inspector/vite.config.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      // An async function with no await is how a promise-returning interface is implemented here (an adapter's
      // `send`, a backend's `ping`): flagging each would mean `Promise.resolve` noise with no bug behind it.
      '@typescript-eslint/require-await': 'off',
      // `_name` marks a parameter an interface requires and this implementation does not use.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      // node:test's test()/describe() return promises the runner itself awaits.
      '@typescript-eslint/no-floating-promises': ['error', { allowForKnownSafeCalls: [{ from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] }] }],
    },
  },
)
