// ESLint: typescript-eslint's recommended type-checked set over the TypeScript sources, tests, benchmarks and
// the inspector. Formatting is not ESLint's job here. Runs in `npm test` (`npm run lint`).
import js from '@eslint/js'
import tseslint from 'typescript-eslint'

const TEST_FN = '/^(test|it|describe|suite)$/'
const NO_SLEEP = 'No sleep in a test: wait for the condition (test/support/wait.ts waitFor) with a bounded timeout.'
/** `setTimeout(…)` or `globalThis.setTimeout(…)` (any object: `timers.setTimeout`) called. */
const SET_TIMEOUT = ":matches(CallExpression[callee.name='setTimeout'], CallExpression[callee.property.name='setTimeout'])"
/** The executor of `new Promise(…)`: an arrow or a function expression. */
const EXECUTOR = "NewExpression[callee.name='Promise'] > :matches(ArrowFunctionExpression, FunctionExpression)"
/**
 * Sleeps: `new Promise((r) => setTimeout(r, ms))` with or without braces, the same with `function (r) { … }` (a
 * one-statement body, `return` or not), `promisify(setTimeout)` (util's or a named import), and timers/promises
 * through `import()` or `require`.
 */
const SLEEPS = [
  { selector: `${EXECUTOR} > ${SET_TIMEOUT}.body`, message: NO_SLEEP },
  { selector: `${EXECUTOR} > BlockStatement.body[body.length=1] > :matches(ExpressionStatement, ReturnStatement) > ${SET_TIMEOUT}`, message: NO_SLEEP },
  {
    selector: ":matches(CallExpression[callee.name='promisify'], CallExpression[callee.property.name='promisify']) > :matches(Identifier[name='setTimeout'], MemberExpression[property.name='setTimeout']).arguments",
    message: NO_SLEEP,
  },
  // timers/promises loaded at run time, which no-restricted-imports does not see.
  { selector: "ImportExpression[source.value=/^(node:)?timers\\/promises$/]", message: NO_SLEEP },
  { selector: "CallExpression[callee.name='require'][arguments.0.value=/^(node:)?timers\\/promises$/]", message: NO_SLEEP },
]
const TEST_RULES = [
  { selector: `CallExpression[callee.object.name=${TEST_FN}][callee.property.name=/^(only|skip|todo)$/]`, message: 'No focused, skipped or todo tests in the suite.' },
  { selector: `CallExpression[callee.name=${TEST_FN}] > ObjectExpression > Property[key.name=/^(only|skip|todo)$/]`, message: 'No focused, skipped or todo tests in the suite.' },
  { selector: "CallExpression[callee.object.name='t'][callee.property.name=/^(skip|todo)$/]", message: 'No skipped or todo tests in the suite: a test that cannot run here fails.' },
  ...SLEEPS,
]
/** `setTimeout` and `scheduler.wait` of timers/promises are sleeps too (named, renamed or through `import * as`). */
const SLEEP_IMPORTS = ['timers/promises', 'node:timers/promises'].map((name) => ({ name, importNames: ['setTimeout', 'scheduler'], message: NO_SLEEP }))

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '**/*.js', '**/*.mjs', '**/*.cjs', 'inspector/vite.config.ts'] },
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
  {
    // Tests: none is focused or skipped, and none sleeps as a wait (a slow machine makes a sleep too short, a fast
    // one wastes it): wait for the condition with test/support/wait.ts. Where time passing is itself the behaviour
    // under test (a window or TTL expiring, a token refill, an agent or upstream paced by a timer), the line says
    // so with `eslint-disable-next-line no-restricted-syntax -- <why>`.
    files: ['test/**/*.ts', 'src/**/*.test.ts'],
    ignores: ['test/support/wait.ts'],
    rules: {
      'no-restricted-syntax': ['error', ...TEST_RULES],
      'no-restricted-imports': ['error', { paths: SLEEP_IMPORTS }],
    },
  },
  {
    // Unit tests whose subject is time passing (a parked buffer's window, a rate-limit refill): their sleeps are
    // that passage, not a wait; focus and skip stay forbidden there too.
    files: ['src/dialects/myagent/ack-buffer.test.ts', 'src/binding/rate-limit.test.ts'],
    rules: { 'no-restricted-syntax': ['error', ...TEST_RULES.filter((r) => !SLEEPS.includes(r))] },
  },
)
