// A node:test reporter that records each test's outcome as one JSON line, for lib/write-doc.mjs: the client (the
// top-level describe it ran in, named after a key of lib/clients.mjs), the case, pass/fail and the failure's
// first line. Used beside the spec reporter (run.sh). A suite's pass/fail event comes after its tests', so each
// file's tests wait for their top-level suite's event, which names them.
import { relative } from 'node:path'

export default async function* results(source) {
  /** Per file: the tests seen since its last top-level suite ended. */
  const pending = new Map()
  for await (const { type, data } of source) {
    if (type !== 'test:pass' && type !== 'test:fail') continue
    const file = data.file ? relative(process.cwd(), data.file) : '?'
    if (!pending.has(file)) pending.set(file, [])
    const mine = pending.get(file)
    const failure = data.details?.error
    const error = type === 'test:fail' ? String(failure?.cause?.message ?? failure?.message ?? 'failed').split('\n')[0] : undefined
    if (data.details?.type !== 'suite') {
      mine.push({
        file,
        name: data.name,
        nesting: data.nesting,
        ok: type === 'test:pass' && !data.skip && !data.todo,
        skipped: Boolean(data.skip || data.todo),
        error,
      })
      continue
    }
    if (data.nesting !== 0) continue
    // A suite whose hook failed (before: the server or the browser did not start) fails with no test reported.
    if (mine.length === 0 && type === 'test:fail') mine.push({ file, name: '(suite setup)', nesting: 1, ok: false, skipped: false, error })
    for (const t of mine.splice(0)) yield `${JSON.stringify({ client: data.name, ...t })}\n`
  }
  for (const mine of pending.values()) for (const t of mine) yield `${JSON.stringify({ client: '(no suite)', ...t })}\n`
}
