// npx tsx bench/agui-validate.ts [--quick]: inbound validation of a typical AG-UI RunAgentInput — Parlance's
// decode (JSON.parse + guard + compiled TypeBox) against JSON.parse alone and against JSON.parse + the
// official Zod schema from @ag-ui/core. Interleaved repetitions in one process; ratios of medians.
import { mkdirSync, writeFileSync } from 'node:fs'
import { RunAgentInputSchema } from '@ag-ui/core/schemas'
import { checkJsonShape, DEFAULT_LIMITS } from '../src/core/index.js'
import { runInputChecker } from '../src/dialects/agui/decode.js'
import { decodeRunInput } from '../src/dialects/agui/index.js'

const quick = process.argv.includes('--quick')
const input = {
  threadId: 'thread-42',
  runId: 'run-7',
  state: { counter: 1, prefs: { theme: 'dark', lang: 'en' } },
  messages: [
    { id: 'm1', role: 'system', content: 'You are a helpful assistant.' },
    { id: 'm2', role: 'user', content: 'What is the weather in Paris?' },
    {
      id: 'm3',
      role: 'assistant',
      content: '',
      toolCalls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
    },
    { id: 'm4', role: 'tool', toolCallId: 'c1', content: '{"city":"Paris","temperature_c":18,"conditions":"cloudy"}' },
    { id: 'm5', role: 'assistant', content: 'The weather in Paris is cloudy at 18 °C.' },
    { id: 'm6', role: 'user', content: 'And tomorrow?' },
  ],
  tools: [
    {
      name: 'get_weather',
      description: 'Current weather for a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
    { name: 'get_client_info', description: 'Information about the client', parameters: { type: 'object', properties: {} } },
  ],
  context: [{ description: 'user timezone', value: 'Europe/Paris' }],
  forwardedProps: {},
}
const body = JSON.stringify(input)

const parsed = JSON.parse(body) as unknown

const candidates: Record<string, () => unknown> = {
  'validate only: Parlance': () => {
    if (checkJsonShape(parsed, DEFAULT_LIMITS.maxJsonDepth) || !runInputChecker.Check(parsed)) throw new Error('invalid')
  },
  'validate only: Zod': () => RunAgentInputSchema.parse(parsed),
  'JSON.parse alone': (): unknown => JSON.parse(body),
  'Parlance decodeRunInput': () => {
    const d = decodeRunInput(body, DEFAULT_LIMITS)
    if (!d.ok) throw d.error
    return d
  },
  'JSON.parse + @ag-ui/core Zod': () => RunAgentInputSchema.parse(JSON.parse(body)),
}

function opsPerSec(fn: () => unknown, ms: number): number {
  let n = 0
  const end = performance.now() + ms
  while (performance.now() < end) {
    for (let i = 0; i < 100; i++) fn()
    n += 100
  }
  return n / (ms / 1000)
}

const reps = quick ? 3 : 7
const ms = quick ? 200 : 500
for (const fn of Object.values(candidates)) opsPerSec(fn, 100) // warm up
const samples: Record<string, number[]> = Object.fromEntries(Object.keys(candidates).map((k) => [k, []]))
for (let r = 0; r < reps; r++) for (const [k, fn] of Object.entries(candidates)) samples[k]!.push(opsPerSec(fn, ms))
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!
const m = Object.fromEntries(Object.entries(samples).map(([k, xs]) => [k, median(xs)]))
const result = {
  benchmark: 'agui-validate',
  bytes: Buffer.byteLength(body),
  repetitions: reps,
  opsPerSecond: samples,
  median: m,
  parlanceVsZod: m['Parlance decodeRunInput']! / m['JSON.parse + @ag-ui/core Zod']!,
  validationOnlyVsZod: m['validate only: Parlance']! / m['validate only: Zod']!,
  parlanceCostVsJsonParse: m['JSON.parse alone']! / m['Parlance decodeRunInput']!,
}
mkdirSync('bench/results', { recursive: true })
writeFileSync(`bench/results/agui-validate${quick ? '-quick' : ''}.json`, `${JSON.stringify(result, null, 2)}\n`)
for (const [k, v] of Object.entries(m)) console.log(`${k.padEnd(32)} ${Math.round(v).toLocaleString('en-US').padStart(12)} ops/s`)
console.log(`validation alone: Parlance ${result.validationOnlyVsZod.toFixed(1)}× Zod`)
console.log(
  `decode (parse + validate): Parlance is ${result.parlanceVsZod.toFixed(1)}× the Zod schema, and takes ${result.parlanceCostVsJsonParse.toFixed(2)}× the time of JSON.parse alone`,
)
