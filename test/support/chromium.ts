// Debian's Chromium through playwright-core (never a downloaded browser), launched with the flags this workplace
// asks for, and the inspector page built fresh with the project's own Vite config for one test run.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { build } from 'vite'
import inspectorConfig from '../../inspector/vite.config.js'
import { waitFor } from './wait.js'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Launches headless Chromium; `extraArgs` add to the standard flags (e.g. host-resolver rules). */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium) or set CHROMIUM_PATH; this test never downloads a browser`,
    )
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  })
}

/** The inspector page built for a test: its directory, and `release()` to call when the test file is done. */
export interface BuiltInspector {
  dir: string
  release(): void
}

async function viteBuild(outDir: string): Promise<void> {
  // The project's own Vite config, imported (not loaded from disk by Vite, which writes a temp file beside it).
  await build({ ...inspectorConfig, configFile: false, logLevel: 'warn', build: { ...inspectorConfig.build, outDir, emptyOutDir: true } })
}

/**
 * Builds the inspector from this checkout's sources, so a stale dist/ is never tested. Under scripts/run-tests.mjs
 * (PARLANCE_TEST_BUILD) the build is made once per test run, by the first file that asks, into the run's compiled
 * tree (removed with it); the other files of the run wait for it and share it (a Vite build is ~8 s of CPU). Run
 * otherwise, each file builds into a new temp dir (named after `prefix`) that `release()` removes.
 */
export async function buildInspector(prefix: string): Promise<BuiltInspector> {
  const shared = process.env.PARLANCE_TEST_BUILD
  if (!shared) {
    const dir = mkdtempSync(join(tmpdir(), prefix))
    await viteBuild(dir)
    return { dir, release: () => rmSync(dir, { recursive: true, force: true }) }
  }
  const dir = join(shared, 'inspector-page')
  const done = join(shared, 'inspector-page.done')
  const keep = { dir, release() {} }
  let mine = true
  try {
    mkdirSync(dir) // atomic: the one process that creates it builds; the others wait for its outcome
  } catch {
    mine = false
  }
  if (mine) {
    try {
      await viteBuild(dir)
      writeFileSync(done, 'ok')
    } catch (err) {
      writeFileSync(done, `the inspector build failed: ${(err as Error).message}`)
      throw err
    }
    return keep
  }
  const outcome = await waitFor(() => (existsSync(done) ? readFileSync(done, 'utf8') : undefined), {
    what: "another test file's inspector build",
    timeoutMs: 180_000,
    intervalMs: 100,
  })
  if (outcome !== 'ok') throw new Error(outcome)
  return keep
}
