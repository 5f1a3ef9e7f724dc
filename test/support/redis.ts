import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import { redisKeys } from '../../src/store/redis/keys.js'

/** Redis used by the cluster tests (it runs on this machine and in CI). */
export const REDIS_URL = 'redis://127.0.0.1:6379'

/** A fresh key prefix under `parlance-test:`; `dropPrefix` deletes everything under it. */
export function testPrefix(): string {
  return `parlance-test:${randomUUID().slice(0, 8)}:`
}

/** Deletes every key under `prefix` (the session keys too: their hash tag `{s:…}` comes after the prefix). */
export async function dropPrefix(prefix: string): Promise<void> {
  const r = new Redis(REDIS_URL)
  try {
    let cursor = '0'
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', redisKeys(prefix).all, 'COUNT', 1000)
      cursor = next
      if (keys.length) await r.del(...keys)
    } while (cursor !== '0')
  } finally {
    await r.quit()
  }
}
