// `require('parlance-gateway')` (or any of its entry points) from CommonJS: the package is ESM-only.
throw new Error(
  'parlance-gateway is ESM-only: import it from an ES module ("type": "module" in package.json, or a .mjs/.mts file) on Node >= 20; ' +
    "from CommonJS use `await import('parlance-gateway')`. See the README's \"Install in your project\".",
)
