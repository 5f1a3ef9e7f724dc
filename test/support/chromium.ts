// Debian's Chromium through playwright-core (never a downloaded browser), launched with the flags this workplace
// asks for, and the inspector page built fresh with the project's own Vite config for one test file.
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium, type Browser } from 'playwright-core'
import { build } from 'vite'
import inspectorConfig from '../../inspector/vite.config.js'

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** Launches headless Chromium; `extraArgs` add to the standard flags (e.g. host-resolver rules). */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium) or set CHROMIUM_PATH; this test never downloads a browser`)
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', ...extraArgs],
  })
}

/** Builds the inspector into a new temp dir (named after `prefix`) and returns it, so a stale dist/ is never tested. */
export async function buildInspector(prefix: string): Promise<string> {
  const outDir = mkdtempSync(join(tmpdir(), prefix))
  // The project's own Vite config, imported (not loaded from disk by Vite, which writes a temp file beside it).
  await build({ ...inspectorConfig, configFile: false, logLevel: 'warn', build: { ...inspectorConfig.build, outDir, emptyOutDir: true } })
  return outDir
}
