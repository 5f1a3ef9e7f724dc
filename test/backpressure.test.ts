import assert from 'node:assert/strict'
import { test } from 'node:test'
import { WebSocket } from 'ws'
import { startServer } from './harness.js'
import { waitFor } from './support/wait.js'

const N = 1_000_000

test('a client that stops reading is dropped with 4008 and a reason, server memory stays bounded, and it resumes from its last seq', async (t) => {
  const s = await startServer({ limits: { slowConsumerStallMs: 500, deliveryHighWaterBytes: 256 * 1024 } })
  t.after(() => s.close())
  const wsUrl = `${s.url.replace('http', 'ws')}/ws?session_id=bp-1`
  const ws = new WebSocket(wsUrl)
  await new Promise((r) => ws.once('open', r))
  let lastSeq = 0
  let frames = 0
  ws.on('message', (d) => {
    frames++
    const m = JSON.parse((d as Buffer).toString('utf8')) as { seq?: number }
    if (typeof m.seq === 'number') lastSeq = m.seq
  })
  const closed = new Promise<{ code: number; reason: string }>((r) => ws.once('close', (code, reason) => r({ code, reason: String(reason) })))
  const heapBefore = process.memoryUsage().heapUsed
  ws.send(JSON.stringify({ type: 'user_message', session_id: 'bp-1', content: `count ${N}` }))
  // Stop reading: the kernel buffers fill, then the server's outbound buffer.
  ;(ws as unknown as { _socket: { pause(): void; resume(): void } })._socket.pause()
  const session = await s.server.sessions.open('bp-1', 'anonymous')
  // The consumer is dropped once the agent has waited slowConsumerStallMs for it.
  await waitFor(() => session.subscriberCount === 0, { what: 'the stalled subscriber to be detached', timeoutMs: 15_000, intervalMs: 50 })
  const heapGrowth = process.memoryUsage().heapUsed - heapBefore
  assert.ok(heapGrowth < 64 * 1024 * 1024, `heap grew by ${heapGrowth} bytes while the client was not reading`)
  ;(ws as unknown as { _socket: { resume(): void } })._socket.resume()
  const why = await closed
  assert.equal(why.code, 4008)
  assert.match(why.reason, /slow consumer|reconnect/)
  assert.ok(lastSeq > 0 && frames < N, `received ${frames} frames before the drop`)

  // The run was not stopped by the drop: resume after the last whole event and get exactly the rest. The
  // reader here shares its process (and 2 busy cores) with the server, so a pause of the whole process can
  // look like a stall to the 500 ms detector; it then does what a dropped client is told to do — reconnect
  // from its last seq — and the stream must still be gap-free and duplicate-free across reconnects.
  const seqs: number[] = []
  let text = ''
  let drops = 0
  for (let done = false; !done;) {
    const from = seqs.length ? seqs[seqs.length - 1]! : lastSeq
    const again = new WebSocket(`${wsUrl}&after=${from}`)
    done = await new Promise<boolean>((resolve, reject) => {
      again.on('message', (d) => {
        const m = JSON.parse((d as Buffer).toString('utf8')) as { type: string; seq?: number; content?: string; status?: string }
        if (typeof m.seq === 'number') seqs.push(m.seq)
        if (m.type === 'assistant_message_chunk') text += m.content ?? ''
        if (m.type === 'status' && m.status === 'completed') resolve(true)
      })
      again.once('close', (code, reason) => {
        if (code === 4008 && ++drops <= 5) return resolve(false)
        reject(new Error(`closed before completion: ${code} ${String(reason)} after ${seqs.length} events`))
      })
    })
    again.close()
  }
  assert.equal(seqs[0], lastSeq + 1, 'no gap at the resume point')
  for (let i = 1; i < seqs.length; i++) assert.equal(seqs[i], seqs[i - 1]! + 1, `contiguous at ${i}`)
  assert.ok(text.endsWith(`${N} `), 'the stream ran to its end')
})
