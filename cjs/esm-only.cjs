// `require('parlance-gateway')` (or any of its entry points) on a Node without require(esm): Node ≥ 20.19 (and
// ≥ 22.12) resolve the "module-sync" condition to the ES module itself, so only older versions reach this file.
throw new Error(
  'parlance-gateway is ESM-only and this Node (' + process.version + ') cannot require() ES modules: upgrade to Node >= 20.19, ' +
    'or import it from an ES module ("type": "module" in package.json, or a .mjs/.mts file); ' +
    "from CommonJS use `await import('parlance-gateway')`. See the README's \"Install in your project\".",
)
