import { hugai } from '../codec.js'
import { RPC, type RpcErrorObject } from '../errors.js'
import { type RpcId } from '../../../core/index.js'
import { RpcFailure, type Peer } from './peer.js'

interface Waiting {
  peer: Peer
  resolve: (v: unknown) => void
  reject: (e: RpcFailure) => void
  timer: NodeJS.Timeout
}

/**
 * Requests the hub sends to peers (an `agent/request` to a registered agent, a client tool call): each ends
 * with the peer's response, a timeout (-32005) or the peer disconnecting (-32006), never a hang.
 */
export class Outbound {
  private readonly waiting = new Map<string, Waiting>()
  private next = 0

  /** Sends `method` to `peer` and resolves with its result; rejects with an RpcFailure. Returns the request id too. */
  send(peer: Peer, method: string, params: unknown, timeoutMs: number): { id: string; done: Promise<unknown> } {
    const id = `hub_${++this.next}`
    const done = new Promise<unknown>((resolve, reject) => {
      if (!peer.push)
        return reject(new RpcFailure({ code: RPC.needsConnection, message: `${peer.agentId ?? peer.id} has no connection to receive ${method}` }))
      const timer = setTimeout(
        () =>
          this.fail(id, {
            code: RPC.timeout,
            message: `${peer.agentId ?? peer.id} did not answer ${method} within ${timeoutMs} ms`,
            data: { code: 'timeout', timeoutMs },
          }),
        timeoutMs,
      )
      this.waiting.set(id, { peer, resolve, reject, timer })
      peer.push(hugai.request(id, method, params))
    })
    return { id, done }
  }

  /** A response from a peer. Responses to unknown ids (late, or never sent) are ignored. */
  answer(from: Peer, id: RpcId, result: unknown, error?: RpcErrorObject): void {
    const w = this.waiting.get(String(id))
    if (!w || w.peer !== from) return
    this.settle(String(id))
    if (error) {
      const code = typeof error.code === 'number' && Number.isInteger(error.code) ? error.code : RPC.internalError
      w.reject(
        new RpcFailure({ code, message: String(error.message ?? 'the peer failed'), ...(error.data !== undefined ? { data: error.data } : {}) }),
      )
    } else w.resolve(result)
  }

  /** Ends a waiting request with an error (cancel, timeout). */
  fail(id: string, error: RpcErrorObject): void {
    const w = this.settle(id)
    w?.reject(new RpcFailure(error))
  }

  /** The peer left: everything waiting on it fails at once. */
  disconnected(peer: Peer): void {
    for (const [id, w] of this.waiting) {
      if (w.peer !== peer) continue
      this.fail(id, {
        code: RPC.targetDisconnected,
        message: `${peer.agentId ?? peer.id} disconnected before answering`,
        data: { code: 'unavailable' },
      })
    }
  }

  private settle(id: string): Waiting | undefined {
    const w = this.waiting.get(id)
    if (!w) return undefined
    clearTimeout(w.timer)
    this.waiting.delete(id)
    return w
  }
}
