import { ParlanceError, type Limits, type Principal } from '../core/index.js'

/** One token bucket: `rate` tokens per second up to `burst`. Plain numbers, no timers. */
class Bucket {
  private tokens: number
  private at: number
  constructor(
    private readonly rate: number,
    private readonly burst: number,
    now: number,
  ) {
    this.tokens = burst
    this.at = now
  }
  take(now: number): boolean {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.at) / 1000) * this.rate)
    this.at = now
    if (this.tokens < 1) return false
    this.tokens -= 1
    return true
  }
  /** Seconds until one token is available. */
  wait(): number {
    return Math.max(0, (1 - this.tokens) / this.rate)
  }
  full(now: number): boolean {
    return this.tokens + ((now - this.at) / 1000) * this.rate >= this.burst
  }
}

/** Admits one connection's inbound frames (or one HTTP client's requests): null when admitted, else the error to answer. */
export type Admit = () => ParlanceError | null

/**
 * Rate limits inbound traffic with token buckets: one per connection and one
 * shared by every connection of a client — its principal, or with auth off its
 * address (`addr:…`) — so opening more sockets does not buy more throughput. A refused frame is answered with `rate_limited` in the
 * dialect's shape and changes nothing; the connection stays open.
 */
export class RateLimiter {
  private readonly principals = new Map<string, Bucket>()

  constructor(private readonly limits: Pick<Limits, 'connectionRatePerSec' | 'connectionBurst' | 'principalRatePerSec' | 'principalBurst'>) {}

  /** An admission check for a new connection of a client (`principal`: its principal, or `addr:<address>`). */
  forConnection(principal: Principal | `addr:${string}`): Admit {
    const { connectionRatePerSec: rate, connectionBurst: burst } = this.limits
    const own = rate > 0 ? new Bucket(rate, Math.max(1, burst), Date.now()) : null
    return () => {
      const now = Date.now()
      if (own && !own.take(now)) return refuse('this connection', own.wait())
      const shared = this.principalBucket(principal, now)
      if (shared && !shared.take(now)) return refuse(principal.startsWith('addr:') ? 'this address' : 'this principal', shared.wait())
      return null
    }
  }

  private principalBucket(principal: string, now: number): Bucket | null {
    const { principalRatePerSec: rate, principalBurst: burst } = this.limits
    if (rate <= 0) return null
    let b = this.principals.get(principal)
    if (!b) {
      // Forget principals whose buckets are full again, so the map tracks only recent senders.
      if (this.principals.size >= 10_000) for (const [p, x] of this.principals) if (x.full(now)) this.principals.delete(p)
      b = new Bucket(rate, Math.max(1, burst), now)
      this.principals.set(principal, b)
    }
    return b
  }
}

function refuse(who: string, waitSec: number): ParlanceError {
  const retryAfterMs = Math.ceil(waitSec * 1000)
  return new ParlanceError('rate_limited', `too many messages from ${who}; retry in ${retryAfterMs} ms`, { retryAfterMs })
}
