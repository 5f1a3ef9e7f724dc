// Fixed Markdown sections of BENCHMARKS.md: the CPU profile recipe and what is not measured.
export const PROFILE = `## CPU profile recipe

Profile the server side of a stream (the load generator in another terminal):

\`\`\`sh
node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx bench/servers/parlance.ts --store sqlite --data /tmp/prof-data
# prints "listening PORT"; then, from another shell:
node --import tsx bench/load/ws-stream.ts ws://127.0.0.1:PORT/ws hai 200000 3
# stop the server with Ctrl-C (it flushes the profile on exit), then open /tmp/prof/*.cpuprofile in
# Chrome DevTools (Performance → Load profile) or speedscope
\`\`\`

Hot spots were not re-profiled in this run of the suite; the design notes in docs/DESIGN.md ("One event's path")
record what earlier profiling changed (encode once per codec key, template-string HAI frames, corked writes,
the next commit started before the previous batch is delivered).
`

export const TODO = `## Not measured yet (TODO)

- **HugAI v2 (JSON-RPC, \`/rpc\`)**: no stream to compare. A built-in agent's \`agent/request\` answers once with
  the run's whole output, and its progress arrives as \`task-progress\` notifications, so a "same frames as raw ws"
  throughput figure would measure one large response; a request/response latency benchmark is the honest shape
  and is not written yet.
- **HUMA in the fan-out**: attaching a HUMA socket to a session turns \`ctx.say\` into a confirmed messaging burst
  for *every* client of the session (docs/dialects/huma.md), so a session with HUMA sockets has no
  stream of N events to fan out; the fan-out benchmark mixes the two streaming WebSocket dialects (HAI and
  MyAgent) instead.
`
