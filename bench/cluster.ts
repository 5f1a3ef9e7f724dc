// (8) Cluster mode (issue 12): 1, 2 and 3 `parlance serve` nodes sharing one Redis on this machine. Aggregate
// HAI streaming throughput with clients spread round-robin over the nodes, cross-node delivery (a run written on
// one node, watched from others through Redis pub/sub) and idle connections with RSS per node. Every node is a
// separate process on 127.0.0.1; every Redis key under the run's prefix is deleted at the end.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { cpuMsOf, lineReader, rssOf, runLoad, sleep, startServer, track, type ServerProcess } from './lib/proc.js'
import { fmt, machine, median, rowOf, table, type BenchContext, type BenchResult } from './lib/result.js'
import { REDIS_URL } from '../test/support/redis.js'

export const title = 'Cluster: 1, 2 and 3 nodes on one machine'

const CLI = 'src/cli/main.ts'

/** One deployment under test: its nodes (one process each) and how rows name it. */
interface Deployment {
  name: string
  nodes: ServerProcess[]
}

const wsBase = (s: ServerProcess) => `ws://127.0.0.1:${s.port}`
const urlsOf = (nodes: readonly ServerProcess[]) => nodes.map(wsBase).join(',')

/** Starts `n` cluster nodes (n1…) on one Redis prefix, ports chosen by the OS. */
function clusterNodes(prefix: string, n: number): Array<Promise<ServerProcess>> {
  return Array.from({ length: n }, (_, i) =>
    startServer(CLI, ['serve', '--store', REDIS_URL, '--redis-prefix', prefix, '--node-id', `n${i + 1}`, '--lease-ms', '5000', '--port', '0']),
  )
}

/** Deletes every key under `prefix` (SCAN + DEL); returns how many there were. */
async function dropPrefix(prefix: string): Promise<number> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 })
  let deleted = 0
  try {
    await redis.connect()
    let cursor = '0'
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000)
      cursor = next
      if (keys.length) deleted += await redis.del(...keys)
    } while (cursor !== '0')
  } finally {
    redis.disconnect()
  }
  return deleted
}

/** Redis `used_memory` (bytes). */
async function redisUsedMemory(): Promise<number> {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 2 })
  try {
    await redis.connect()
    return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? NaN)
  } finally {
    redis.disconnect()
  }
}

/** CPU time all of `nodes` used while `fn` ran (ms). */
async function cpuDuring<T>(nodes: readonly ServerProcess[], fn: () => Promise<T>): Promise<{ out: T; cpuMs: number }> {
  const sum = () => nodes.reduce((a, s) => a + cpuMsOf(s.pid), 0)
  const before = sum()
  const out = await fn()
  return { out, cpuMs: sum() - before }
}

async function rssSettled(pid: number, samples: number): Promise<number> {
  const xs: number[] = []
  for (let i = 0; i < samples; i++) {
    await sleep(400)
    xs.push(rssOf(pid))
  }
  return median(xs)
}

interface IdleOut {
  connected: number[]
  stillOpen: number[]
  connectSeconds: number
  connectError: string
}

interface Idle {
  out: IdleOut
  /** Per node: RSS before the connections and with them, idle (bytes). */
  rssBefore: number[]
  rssIdle: number[]
}

/** Opens `perNode` idle HAI connections to each node of `d` and reads every node's RSS before and with them. */
async function idleConnections(ctx: BenchContext, d: Deployment, perNode: number): Promise<Idle> {
  const samples = ctx.quick ? 1 : 3
  const rssBefore = await Promise.all(d.nodes.map((s) => rssSettled(s.pid, samples)))
  const child = track(
    spawn(process.execPath, ['--import', 'tsx', 'bench/load/cluster-idle.ts', urlsOf(d.nodes), String(perNode)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    }),
  )
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  const expect = lineReader(child, `${d.name}: the idle-connection generator`)
  try {
    ctx.log(`    ${d.name}: ${await expect('connected ')} (per node)`)
    const rssIdle = await Promise.all(d.nodes.map((s) => rssSettled(s.pid, samples)))
    child.stdin!.write('go\n')
    const out = JSON.parse(await expect('{')) as IdleOut
    return { out, rssBefore, rssIdle }
  } finally {
    clearTimeout(timer)
    child.stdin!.end()
    if (child.exitCode === null) child.kill('SIGKILL')
  }
}

interface StreamOut {
  eventsPerSecond: number
  seconds: number
  perNode: Array<{ clients: number; eventsPerSecond: number; seconds: number }>
}

interface WatchOut {
  deliveredPerSecond: number
  seconds: number
}

export async function run(ctx: BenchContext): Promise<BenchResult> {
  // The spread between repetitions on this shared machine is wide (tens of percent), so a full run takes 5.
  const reps = ctx.quick ? 1 : Math.max(ctx.reps, 5)
  const clients = ctx.quick ? 30 : 60
  const count = ctx.quick ? 500 : 2_000
  const watchN = ctx.quick ? 2_000 : 20_000
  const watchers = ctx.quick ? 10 : 30
  const perNode = ctx.quick ? 300 : 3_000
  const prefix = `parlance-bench:${randomBytes(4).toString('hex')}:`
  const started: ServerProcess[] = []
  let redisBytes = NaN
  const redisBefore = await redisUsedMemory().catch(() => NaN)
  let result: BenchResult | undefined
  try {
    // Every deployment is up for the whole benchmark, so repetitions interleave across them (bench/lib/interleave.ts).
    const launch = async (ps: Array<Promise<ServerProcess>>) => {
      const settled = await Promise.allSettled(ps)
      for (const s of settled) if (s.status === 'fulfilled') started.push(s.value)
      for (const s of settled) if (s.status === 'rejected') throw s.reason
      return settled.map((s) => (s as PromiseFulfilledResult<ServerProcess>).value)
    }
    const launched = performance.now()
    const all = await launch([
      ...clusterNodes(`${prefix}c1:`, 1),
      ...clusterNodes(`${prefix}c2:`, 2),
      ...clusterNodes(`${prefix}c3:`, 3),
      startServer(CLI, ['serve', '--store', 'sqlite', '--data', join(ctx.tmp, 'sqlite'), '--port', '0']),
    ])
    const one: Deployment = { name: '1 node, Redis', nodes: all.slice(0, 1) }
    const two: Deployment = { name: '2 nodes, Redis', nodes: all.slice(1, 3) }
    const three: Deployment = { name: '3 nodes, Redis', nodes: all.slice(3, 6) }
    const sqlite: Deployment = { name: '1 node, SQLite (reference)', nodes: all.slice(6, 7) }
    const deployments = [one, two, three, sqlite]
    const t0 = performance.now()
    const phase = (what: string) => ctx.log(`    ${what} (${((performance.now() - t0) / 1000).toFixed(1)} s since the servers were up)`)
    ctx.log(`    ${started.length} servers up in ${((performance.now() - launched) / 1000).toFixed(1)} s; Redis prefix ${prefix}`)

    // Idle connections first, while the processes hold no sessions.
    const idle = new Map<Deployment, Idle>()
    for (const d of deployments) idle.set(d, await idleConnections(ctx, d, perNode))

    phase('idle connections done')

    // Aggregate throughput, interleaved.
    const total = new Map<Deployment, number[]>(deployments.map((d) => [d, []]))
    const byNode = new Map<string, number[]>()
    /** Server CPU ms (all nodes of the deployment) per 1,000 delivered events. */
    const streamCpu = new Map<Deployment, number[]>(deployments.map((d) => [d, []]))
    for (let r = 0; r < reps; r++) {
      for (const d of deployments) {
        const { out, cpuMs } = await cpuDuring(d.nodes, () =>
          runLoad<StreamOut>('bench/load/cluster-stream.ts', [urlsOf(d.nodes), String(clients), String(count)], { timeoutMs: 90_000 }),
        )
        total.get(d)!.push(out.eventsPerSecond)
        streamCpu.get(d)!.push(cpuMs / ((clients * count) / 1000))
        out.perNode.forEach((p, i) => {
          const key = `${d.name}: n${i + 1}`
          byNode.set(key, [...(byNode.get(key) ?? []), p.eventsPerSecond])
        })
        ctx.log(
          `    rep ${r + 1}/${reps} ${d.name}: ${fmt(out.eventsPerSecond)} events/s in ${out.seconds.toFixed(2)} s, ${fmt(streamCpu.get(d)!.at(-1)!)} CPU ms/1k (per node ${out.perNode.map((p) => fmt(p.eventsPerSecond)).join(', ')})`,
        )
      }
    }

    phase('aggregate throughput done')

    // Cross-node delivery: the run always executes on n1 of the 3-node cluster; only where its watchers sit changes.
    const [n1, n2, n3] = three.nodes as [ServerProcess, ServerProcess, ServerProcess]
    // `nodes`: the processes whose CPU time counts (the whole 3-node cluster, or the SQLite node).
    const watchConfigs: Array<{ name: string; writer: ServerProcess; watch: ServerProcess[]; nodes: ServerProcess[] }> = [
      { name: `${watchers} watchers on n1 (the writer)`, writer: n1, watch: [n1], nodes: three.nodes },
      { name: `${watchers} watchers on n2 (via Redis)`, writer: n1, watch: [n2], nodes: three.nodes },
      { name: `${watchers} watchers on n2 + n3 (via Redis)`, writer: n1, watch: [n2, n3], nodes: three.nodes },
      { name: `${watchers} watchers, 1 node SQLite (reference)`, writer: sqlite.nodes[0]!, watch: [sqlite.nodes[0]!], nodes: sqlite.nodes },
    ]
    const watch = watchConfigs.map(() => [] as number[])
    const watchCpu = watchConfigs.map(() => [] as number[])
    for (let r = 0; r < reps; r++) {
      for (const [i, c] of watchConfigs.entries()) {
        const { out, cpuMs } = await cpuDuring(c.nodes, () =>
          runLoad<WatchOut>('bench/load/cluster-watch.ts', [wsBase(c.writer), urlsOf(c.watch), String(watchN), String(watchers)], {
            timeoutMs: 60_000,
          }),
        )
        watch[i]!.push(out.deliveredPerSecond)
        watchCpu[i]!.push(cpuMs / ((watchN * watchers) / 1000))
        ctx.log(
          `    rep ${r + 1}/${reps} ${c.name}: ${fmt(out.deliveredPerSecond)} delivered/s in ${out.seconds.toFixed(2)} s, ${fmt(watchCpu[i]!.at(-1)!)} CPU ms/1k`,
        )
      }
    }
    phase('cross-node delivery done')
    redisBytes = await redisUsedMemory().catch(() => NaN)

    const throughput = table(
      `${clients} sessions × count ${count.toLocaleString('en-US')}, clients round-robin over the nodes`,
      'delivered events/s',
      true,
      deployments.map((d) => [d.name, total.get(d)!] as const),
    )
    const perNodeTable = table(`the same runs, per node (its clients' events / time to its last completed run)`, 'events/s', true, [
      ...byNode.entries(),
    ])
    const watchTable = table(
      `one run of count ${watchN.toLocaleString('en-US')} written on n1, ${watchers} watchers attached with ?session_id&after=0`,
      'delivered events/s',
      true,
      watchConfigs.map((c, i) => [c.name, watch[i]!] as const),
    )
    const throughputCpu = table(
      'the same runs: server CPU time, all nodes together, per 1,000 delivered events',
      'CPU ms',
      false,
      deployments.map((d) => [d.name, streamCpu.get(d)!] as const),
    )
    const watchCpuTable = table(
      'the same cross-node runs: server CPU time, all nodes together, per 1,000 delivered events',
      'CPU ms',
      false,
      watchConfigs.map((c, i) => [c.name, watchCpu[i]!] as const),
    )
    const kb = (d: Deployment, i: number) => {
      const m = idle.get(d)!
      return (m.rssIdle[i]! - m.rssBefore[i]!) / Math.max(1, m.out.connected[i]!) / 1024
    }
    const mbIdle = (d: Deployment, i: number) => idle.get(d)!.rssIdle[i]! / 2 ** 20
    const nodeRows = (f: (d: Deployment, i: number) => number) =>
      deployments.flatMap((d) => d.nodes.map((_, i) => [`${d.name}: n${i + 1}`, [f(d, i)]] as const))
    const rssPerConn = table(`server RSS per idle HAI connection, ${perNode.toLocaleString('en-US')} connections per node`, 'KB', false, nodeRows(kb))
    const rssNode = table(`server RSS per node holding ${perNode.toLocaleString('en-US')} idle connections`, 'MB', false, nodeRows(mbIdle))

    const three3 = rowOf(throughput, three.name)
    const two2 = rowOf(throughput, two.name)
    const sql = rowOf(throughput, sqlite.name)
    const cross = rowOf(watchTable, watchConfigs[1]!.name)
    const cross2 = rowOf(watchTable, watchConfigs[2]!.name)
    const conns = deployments
      .map(
        (d) =>
          `${d.name}: ${idle
            .get(d)!
            .out.connected.map((c) => c.toLocaleString('en-US'))
            .join(' + ')}`,
      )
      .join('; ')
    const allHeld = deployments.every((d) => {
      const o = idle.get(d)!.out
      return o.connected.every((c) => c === perNode) && o.stillOpen.every((c) => c === perNode)
    })
    const errors = deployments.map((d) => idle.get(d)!.out.connectError).filter(Boolean)
    const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MB`
    // `issue` tells bench/lib/report.ts which issue's targets these are.
    const r: BenchResult & { issue: number } = {
      name: 'cluster',
      title,
      issue: 12,
      command: `npm run bench -- cluster${ctx.quick ? ' --quick' : ''}`,
      date: new Date().toISOString(),
      quick: ctx.quick,
      machine: machine(),
      params: { sessions: clients, events: count, 'watched events': watchN, watchers, 'idle connections per node': perNode, repetitions: reps },
      description:
        'Each node is a separate `parlance serve --store redis://127.0.0.1:6379 --redis-prefix P --node-id nI --lease-ms 5000` process on its own 127.0.0.1 port; ' +
        'the 1-, 2- and 3-node clusters each have their own prefix in the same Redis, and a single `parlance serve --store sqlite` node is the reference. All of them stay up for the whole benchmark and repetitions interleave across them. ' +
        `Aggregate throughput: one load-generator process opens ${clients} HAI WebSockets, client i on node i mod N (no sticky routing), and every client sends \`count ${count.toLocaleString('en-US')}\` in its own new session at once ` +
        '(the session is written by the node the client is on); delivered events/s = sessions × N / time until the last `status: completed`, each client checked to receive every chunk. Baseline: the 1-node Redis cluster. ' +
        `Cross-node delivery: on the 3-node cluster a sender on n1 starts a session with a one-chunk run (n1 takes its lease), ${watchers} watchers attach with \`/ws?session_id=S&after=0\` on n1, on n2, or round-robin on n2 and n3, ` +
        `and once all have the first run's replay the sender (whose socket on n1 also receives the stream) sends \`count ${watchN.toLocaleString('en-US')}\`, which runs on n1; delivered events/s = N × watchers / time until every watcher has the run's last frame. ` +
        'Watchers on n2/n3 get the events n1 commits through Redis pub/sub (a replica session per node, one encode per node), so the difference to the n1 row is what crossing Redis costs. ' +
        'Server CPU time: the user + system time of the counted node processes from /proc/PID/stat over each repetition (all nodes of the deployment; the whole 3-node cluster for cross-node delivery), per 1,000 delivered events; ' +
        "it moves far less than the wall-clock rates with the other load on this machine. Redis's own CPU is not counted (the Redis server is shared with other test suites). " +
        `Connections: before any streaming, one process opens ${perNode.toLocaleString('en-US')} idle HAI WebSockets (\`/ws\`, no session) per node and reads each node's RSS from /proc before and with them.`,
      tables: [throughput, throughputCpu, perNodeTable, watchTable, watchCpuTable, rssPerConn, rssNode],
      targets: [
        {
          text: 'aggregate throughput with 1, 2 and 3 nodes (no number set)',
          measured: `3 nodes ${three3.ratio.toFixed(2)}×, 2 nodes ${two2.ratio.toFixed(2)}× the 1-node Redis figure (${fmt(rowOf(throughput, one.name).median)} events/s; SQLite single node ${sql.ratio.toFixed(2)}×); every session received all its chunks`,
          met: null,
        },
        {
          text: 'cross-node delivery through Redis (no number set)',
          measured: `watchers on n2 ${cross.ratio.toFixed(2)}×, on n2 + n3 ${cross2.ratio.toFixed(2)}× the same watchers on the writer; none lost an event`,
          met: null,
        },
        {
          text: `idle connections on 1, 2 and 3 nodes (${perNode.toLocaleString('en-US')} per node here)`,
          measured: `${conns}${allHeld ? '; all still open after the RSS reads' : ''}${errors.length ? `; errors: ${errors.join('; ')}` : ''}`,
          met: null,
        },
      ],
      limits:
        `CPU. This machine has ${machine().cores} shared cores (other engineers' test suites run on them too) and the nodes, Redis and the load generator all run on them. ` +
        'One Node process uses about one core, so a single node leaves the second core to the load generator and Redis; a second node can take part of that core ' +
        `(2 nodes ${two2.ratio.toFixed(2)}×, 3 nodes ${three3.ratio.toFixed(2)}× the 1-node figure here, for ${rowOf(throughputCpu, two.name).ratio.toFixed(2)}× and ${rowOf(throughputCpu, three.name).ratio.toFixed(2)}× its server CPU per event), and a third only adds a process competing for the same 2 cores. ` +
        "So these figures show that the load spreads over the nodes (each node's share in the per-node table) and what the cluster costs on fixed hardware; they cannot show, and do not claim, linear scaling on separate machines. " +
        `Server CPU per 1,000 delivered events: ${deployments.map((d) => `${d.name} ${fmt(rowOf(throughputCpu, d.name).median)} ms`).join(', ')}. ` +
        `Per tick a cluster node commits each session's events to Redis in one Lua script (XADD to the session's stream, lease check, and a PUBLISH of the events on the session's channel, even with nobody listening) instead of an in-process SQLite transaction: the single SQLite node is ${sql.ratio.toFixed(2)}× the 1-node Redis figure. ` +
        "Crossing Redis costs each event that PUBLISH fan-out to every node that has the session loaded, a JSON.parse on each replica node and that node's own encode and writes: " +
        `${watchers} watchers on one replica (n2) get ${cross.ratio.toFixed(2)}× the delivery rate of the same watchers on the writer, for ${rowOf(watchCpuTable, watchConfigs[1]!.name).ratio.toFixed(2)}× the server CPU per delivered event; ` +
        `split over n2 and n3 they get ${cross2.ratio.toFixed(2)}×, for ${rowOf(watchCpuTable, watchConfigs[2]!.name).ratio.toFixed(2)}× the CPU (two processes then encode and write the frames, half the watchers each, but both decode every event, and three busy processes share the 2 cores). ` +
        `RSS per idle connection comes from one RSS difference per node (median of ${ctx.quick ? 1 : 3} reads), so garbage-collection timing moves it by a few KB; per node before the connections: ${deployments.map((d) => `${d.name} ${idle.get(d)!.rssBefore.map(mb).join(' / ')}`).join(', ')}. ` +
        `Connections were capped at ${perNode.toLocaleString('en-US')} per node to keep the benchmark within its time bound (see "Concurrent sessions" for 10,000 on one node).`,
      notes: [],
    }
    result = r
    return r
  } finally {
    await Promise.all(started.map((s) => s.close()))
    const deletedKeys = await dropPrefix(prefix).catch((err: unknown) => {
      ctx.log(`    could not delete the Redis keys under ${prefix}: ${String(err)}`)
      return -1
    })
    ctx.log(`    servers stopped; ${deletedKeys} Redis keys under ${prefix} deleted`)
    const grew = redisBytes - redisBefore
    const held = Number.isFinite(grew) ? `grew by ${(grew / 2 ** 20).toFixed(0)} MB` : 'was not read'
    result?.notes.push(
      `Redis (one shared server, used by other test suites too) used_memory ${held} over the benchmark, mostly the sessions' event streams; afterwards every server was stopped and ${deletedKeys < 0 ? "the keys under the run's prefix could NOT be deleted" : `the ${deletedKeys.toLocaleString('en-US')} keys under the run's prefix were deleted (SCAN + DEL)`}.`,
    )
  }
}
