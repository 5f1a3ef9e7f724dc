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
    rollupOptions: {
      // zod (bundled through the MCP SDK's client) writes comments beside its `@__PURE__` annotations where
      // Rollup cannot read them; Rollup drops those comments, which changes nothing in the bundle. Only that
      // warning, only for dependencies, is left out; every other warning still shows.
      onwarn(warning, warn) {
        if (warning.code === 'INVALID_ANNOTATION' && warning.id?.includes('/node_modules/')) return
        warn(warning)
      },
    },
  },
  resolve: {
    alias: { 'parlance-gateway/client': fileURLToPath(new URL('./src/clients.ts', import.meta.url)) },
  },
})
