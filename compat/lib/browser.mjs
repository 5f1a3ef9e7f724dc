// Debian's Chromium through playwright-core (never a downloaded browser), with the flags this project's browser
// tests use and host-resolver rules that map every *.test name to 127.0.0.1 and resolve nothing else (so a page
// on http://app.test:PORT is another origin, still on loopback, and nothing a page does leaves the machine);
// a page built with Vite; a static file server that can hand some paths to another listener.
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { extname, join, normalize, resolve } from 'node:path'
import { chromium } from 'playwright-core'
import { build, createServer as createVite } from 'vite'

const compat = resolve(import.meta.dirname, '..')

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

export async function launchChromium() {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium) or set CHROMIUM_PATH; the suite never downloads a browser`,
    )
  const userDataDir = mkdtempSync(join(tmpdir(), 'parlance-compat-chromium-'))
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--host-resolver-rules=MAP *.test 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
    ],
  })
  return {
    context,
    async close() {
      await context.close()
      rmSync(userDataDir, { recursive: true, force: true })
    },
  }
}

/** Builds the page in compat/pages/<name> with Vite into a new temp dir; returns it and `remove()`. */
export async function buildPage(name, define = {}) {
  const outDir = mkdtempSync(join(tmpdir(), `parlance-compat-${name}-`))
  await build({
    root: resolve(import.meta.dirname, '..', 'pages', name),
    configFile: false,
    logLevel: 'warn',
    publicDir: false,
    define,
    esbuild: { jsx: 'automatic' },
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      minify: false,
      reportCompressedSize: false,
      chunkSizeWarningLimit: 20_000,
      rollupOptions: {
        onwarn(warning, warn) {
          // Dependencies' own notes (annotations rollup cannot read, "use client" directives) change nothing.
          if (['INVALID_ANNOTATION', 'MODULE_LEVEL_DIRECTIVE', 'SOURCEMAP_ERROR', 'EVAL'].includes(warning.code)) return
          warn(warning)
        },
      },
    },
  })
  return { dir: outDir, remove: () => rmSync(outDir, { recursive: true, force: true }) }
}

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
}

/** Serves `dir` on 127.0.0.1:0 (index.html for /); requests under `prefix` go to `handler` instead. */
export async function serve(dir, prefix, handler) {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname
    if (prefix && path.startsWith(prefix)) return handler(req, res)
    const file = normalize(join(dir, path === '/' ? 'index.html' : path))
    if (!file.startsWith(dir) || req.method !== 'GET') return void res.writeHead(404).end()
    readFile(file).then(
      (body) => res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' }).end(body),
      () => res.writeHead(404).end(),
    )
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  return {
    port: server.address().port,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}

/**
 * Serves the page in compat/pages/<name> with Vite's dev server on 127.0.0.1:0: the dependencies `deps` are
 * pre-bundled by esbuild once (cached under node_modules/.vite-compat, kept while the lockfile is), the page's own
 * files transformed per request. A full `vite build` of a CopilotKit page (rollup over CopilotKit's markdown,
 * math and diagram dependencies) took 270 s here; this takes seconds warm. Requests under `prefix` go to `handler`.
 */
export async function servePage(name, { deps, prefix, handler, define = {} }) {
  const vite = await createVite({
    root: resolve(import.meta.dirname, '..', 'pages', name),
    configFile: false,
    logLevel: 'warn',
    publicDir: false,
    define,
    cacheDir: resolve(import.meta.dirname, '..', 'node_modules', '.vite-compat', name),
    esbuild: { jsx: 'automatic' },
    // Every dependency named up front: no discovery while the page loads, so no re-optimisation and reload mid-test.
    optimizeDeps: { include: deps, noDiscovery: true },
    // compat/node_modules may be a link to the install kept outside the checkout (run.sh): Vite may serve both.
    server: {
      host: '127.0.0.1',
      port: 0,
      strictPort: false,
      hmr: false,
      watch: null,
      fs: { allow: [compat, realpathSync(join(compat, 'node_modules'))] },
    },
    plugins: prefix
      ? [
          {
            name: 'parlance-compat-backend',
            configureServer(server) {
              server.middlewares.use((req, res, next) => ((req.url ?? '').startsWith(prefix) ? handler(req, res) : next()))
            },
          },
        ]
      : [],
  })
  await vite.listen()
  return { port: vite.httpServer.address().port, close: () => vite.close() }
}
