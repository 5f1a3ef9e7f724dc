// The agent of the `state-patch` benchmark. On "state S N" its run sets a state of S small items
// ({ items: { k0: { v: 0, name: 'item 0' }, … } }), says "READY", then applies N one-field `replace` patches
// (`/items/k<i mod S>/v`), each followed by a turn of the event loop (as an agent doing work between changes
// would: each patch gets its own commit), and says "DONE". A client times READY → DONE.
// Loadable by bench/servers/parlance.ts --agent (default export).
import { defineAgent } from '../../src/index.js'

const MAX_ITEMS = 200_000
const MAX_PATCHES = 100_000

export default defineAgent({
  name: 'state-patch',
  async run(ctx) {
    const m = /\bstate\s+(\d{1,6})\s+(\d{1,6})/.exec(ctx.input.text)
    const items = Math.min(MAX_ITEMS, Number(m?.[1] ?? 500))
    const patches = Math.min(MAX_PATCHES, Number(m?.[2] ?? 1000))
    const state: Record<string, { v: number; name: string }> = {}
    for (let i = 0; i < items; i++) state[`k${i}`] = { v: 0, name: `item ${i}` }
    await ctx.setState({ items: state })
    await ctx.say('READY')
    for (let i = 0; i < patches; i++) {
      await ctx.setState([{ op: 'replace', path: `/items/k${i % items}/v`, value: i + 1 }])
      await new Promise((r) => setImmediate(r))
    }
    await ctx.say('DONE')
  },
})
