// Tools and a human approval: a server tool, a client tool and an approval gate, served over every dialect.
// Run: npx tsx examples/tools-agent.ts   then e.g. `npm run chat` and type "list", "where am I" or "delete todo.txt".
import { createServer, defineAgent } from 'parlance-gateway'

const files = new Map([
  ['todo.txt', 'buy milk'],
  ['notes.md', '# notes'],
])

const filesAgent = defineAgent({
  name: 'files',
  description: 'Lists and deletes files; deleting needs a human approval.',
  tools: {
    // Runs here, on the server.
    list_files: { description: 'Lists the files', execute: () => [...files.keys()] },
    delete_file: {
      description: 'Deletes a file permanently',
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      execute: ({ name }) => (files.delete(String(name)) ? `deleted ${String(name)}` : `no file named ${String(name)}`),
    },
    // No `execute`: the client runs it (HAI tool_call_start with target "client", a HUMA tool-call, …).
    get_location: { description: 'Where the user is (asks the client)', parameters: { type: 'object', properties: {} } },
  },
  async run(ctx) {
    const text = ctx.input.text
    const del = /\bdelete\s+(\S+)/i.exec(text)
    if (del) {
      const name = del[1]!
      await ctx.status('thinking', `Asking before deleting ${name}`)
      const answer = await ctx.approve({ tool: 'delete_file', args: { name }, risk: 'high', reasoning: `You asked me to delete ${name}.` })
      if (!answer.approved) return void (await ctx.say(`Kept ${name}${answer.feedback ? `: ${answer.feedback}` : ''}.`))
      const result = await ctx.callTool('delete_file', { name })
      return void (await ctx.say(`Done: ${typeof result === 'string' ? result : JSON.stringify(result)}.`))
    }
    if (/where/i.test(text)) {
      const where = await ctx.callTool<{ city?: string }>('get_location')
      return void (await ctx.say(`You are in ${where.city ?? 'an unknown place'}.`))
    }
    const list = await ctx.callTool<string[]>('list_files')
    await ctx.say(['Files: ', list.join(', ') || 'none'])
  },
})

const server = await createServer({ agents: [filesAgent] })
const url = await server.listen(Number(process.env.PORT ?? 8000))
console.log(`inspector: ${url}/ (open it in a browser)  HAI: ${url.replace('http', 'ws')}/ws`)
