// How a test starts one of the project's TypeScript entry points (the CLI, a fixture server) in a child process.
import { join } from 'node:path'

/**
 * Node's arguments to run `file` (a .ts path from the repository's root, the tests' working directory) with
 * `args`: its compiled copy when scripts/run-tests.mjs compiled the tree (PARLANCE_TEST_BUILD; the same esbuild
 * output tsx would load, without tsx's start-up cost in every child), else the source through tsx.
 */
export function tsNodeArgs(file: string, ...args: string[]): string[] {
  const build = process.env.PARLANCE_TEST_BUILD
  return build ? ['--enable-source-maps', join(build, file.replace(/\.ts$/, '.js')), ...args] : ['--import', 'tsx', file, ...args]
}

/** Node's arguments to run the `parlance` CLI (src/cli/main.ts) with `args`. */
export function cliArgs(...args: string[]): string[] {
  return tsNodeArgs('src/cli/main.ts', ...args)
}
