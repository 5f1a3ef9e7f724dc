// Module resolve hooks (node:module register) that make Parlance's compiled tree import a package from compat/
// under another name: `ai` → `ai7` runs aiSdkAgent on ai 7, `ai` → `ai` on the suite's ai 6 (not the repo's
// copy). Only imports from the compiled tree are redirected; everything else resolves as usual.
let map = {}
let build = ''
let from = ''

export function initialize(data) {
  ;({ map, build, from } = data)
}

export async function resolve(specifier, context, next) {
  const to = map[specifier]
  if (to && context.parentURL?.startsWith(build)) return next(to, { ...context, parentURL: from })
  return next(specifier, context)
}
