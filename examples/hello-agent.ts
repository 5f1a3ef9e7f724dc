// #region readme
import { createServer, defineAgent } from 'parlance-gateway'

const hello = defineAgent({
  name: 'hello',
  tools: { shout: { description: 'Upper-cases text', execute: ({ text }) => String(text).toUpperCase() } },
  async run(ctx) {
    await ctx.status('thinking')
    const loud = await ctx.callTool('shout', { text: ctx.input.text }) // a string: typed by the tool's name
    await ctx.say(['You said ', loud, '!'])
  },
})

const server = await createServer({ agents: [hello] })
const url = await server.listen(Number(process.env.PORT ?? 8000))
console.log(`inspector: ${url}/ (open it in a browser)  HAI: ${url.replace('http', 'ws')}/ws`)
// #endregion
