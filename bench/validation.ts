// (4) Inbound validation, in-process: decode + validate of each dialect's typical inbound frame against
// JSON.parse alone, interleaved repetitions. (The AG-UI case against @ag-ui/core's Zod schemas is
// bench/agui-validate.ts, folded into the report.)
import { readFileSync } from 'node:fs'
import { DEFAULT_LIMITS } from '../src/core/index.js'
import { hai } from '../src/dialects/hai/index.js'
import { huma } from '../src/dialects/huma/index.js'
import { decode as myagentDecode } from '../src/dialects/myagent/decode.js'
import { machine, rowOf, table, type BenchContext, type BenchResult, type Table } from './lib/result.js'

export const title = 'Inbound validation'

const compact = (file: string) => JSON.stringify(JSON.parse(readFileSync(file, 'utf8')))

function opsPerSec(fn: () => unknown, ms: number): number {
  let n = 0
  const start = performance.now()
  const end = start + ms
  let now = start
  while (now < end) {
    for (let i = 0; i < 200; i++) fn()
    n += 200
    now = performance.now()
  }
  return n / ((now - start) / 1000)
}

const must = (d: { ok: boolean }) => {
  if (!d.ok) throw new Error('a typical frame was rejected')
  return d
}

export function run(ctx: BenchContext): Promise<BenchResult> {
  const haiFrame = compact('src/dialects/hai/fixtures/user_message/example.json')
  const humaFrame = compact('src/dialects/huma/fixtures/context-update/user-message.json')
  const humaPayload = JSON.parse(humaFrame) as unknown
  const myagentFrame = JSON.stringify({
    event: 'user.message',
    session_id: 'sess_42',
    content: 'What are the regulations for food storage?',
    timestamp: '2026-11-23T08:00:00.000Z',
  })
  const groups: Array<[string, string, Array<[string, () => unknown]>]> = [
    [
      'HAI `user_message`',
      haiFrame,
      [
        ['JSON.parse alone', (): unknown => JSON.parse(haiFrame)],
        ['Parlance HAI decode', () => must(hai.decode(haiFrame, DEFAULT_LIMITS))],
      ],
    ],
    [
      'HUMA `context-update`',
      humaFrame,
      [
        ['JSON.parse alone', (): unknown => JSON.parse(humaFrame)],
        ['Parlance HUMA decode', () => must(huma.decode(humaFrame, DEFAULT_LIMITS))],
        // What the endpoint does: socket.io already parsed the payload; it is re-serialized to size-check it.
        ['HUMA endpoint path (stringify + decode)', () => must(huma.decode(JSON.stringify(humaPayload), DEFAULT_LIMITS))],
      ],
    ],
    [
      'MyAgent `user.message`',
      myagentFrame,
      [
        ['JSON.parse alone', (): unknown => JSON.parse(myagentFrame)],
        ['Parlance MyAgent decode', () => must(myagentDecode(myagentFrame, DEFAULT_LIMITS))],
      ],
    ],
  ]
  const ms = ctx.quick ? 150 : 400
  const reps = ctx.quick ? 3 : 7
  for (const [, , fns] of groups) for (const [, fn] of fns) opsPerSec(fn, 100) // warm up
  const samples = groups.map(([, , fns]) => fns.map(() => [] as number[]))
  for (let r = 0; r < reps; r++)
    for (const [g, [, , fns]] of groups.entries()) for (const [i, [, fn]] of fns.entries()) samples[g]![i]!.push(opsPerSec(fn, ms))
  const tables: Table[] = groups.map(([name, frame, fns], g) =>
    table(
      `${name} (${Buffer.byteLength(frame)} bytes)`,
      'ops/s',
      true,
      fns.map(([n], i) => [n, samples[g]![i]!] as const),
    ),
  )
  const targets = tables.map((t) => {
    const decodeRow = t.rows[1]!
    const cost = 1 / decodeRow.ratio
    return { text: `${t.title.split(' (')[0]}: decode ≤ 2× the time of JSON.parse alone`, measured: `${cost.toFixed(2)}×`, met: cost <= 2 }
  })
  const humaPath = rowOf(tables[1]!, 'HUMA endpoint path (stringify + decode)')
  return Promise.resolve({
    name: 'validation',
    title,
    command: `npm run bench -- validation${ctx.quick ? ' --quick' : ''}`,
    date: new Date().toISOString(),
    quick: ctx.quick,
    machine: machine(),
    params: { repetitions: reps, msPerSample: ms },
    description:
      "In one process, interleaved: ops/s of each dialect's decoder (size check, JSON.parse, forbidden-key and depth guard, compiled TypeBox schema, mapping to a command) on a typical inbound frame from its fixtures, " +
      'against JSON.parse of the same frame alone (the baseline; a ratio of 0.50 means decoding takes twice as long as parsing).',
    tables,
    targets,
    limits: `JSON.parse is most of the cost; the guard walks the parsed value once more and the schema check is compiled. The HUMA endpoint pays an extra JSON.stringify because socket.io hands it a parsed object (${(1 / humaPath.ratio).toFixed(2)}× JSON.parse in total).`,
    notes: [],
  })
}
