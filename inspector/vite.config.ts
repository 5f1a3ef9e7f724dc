import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vite'

/**
 * Builds the inspector page into `dist/inspector/` (served by the server at `GET /`, files under `/inspector/`).
 * Everything is bundled: no CDN, no external fonts, works offline.
 */
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/inspector/',
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/inspector', import.meta.url)),
    emptyOutDir: true,
    sourcemap: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
  },
  resolve: {
    alias: { 'parlance-gateway/client': fileURLToPath(new URL('./src/clients.ts', import.meta.url)) },
  },
})
