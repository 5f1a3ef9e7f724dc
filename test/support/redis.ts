import { randomUUID } from 'node:crypto'
import { Redis } from 'ioredis'
import type { RedisUrl } from '../../src/server/index.js'
import { redisKeys } from '../../src/store/redis/keys.js'

/**
 * The Redis every test and benchmark that needs one uses: `PARLANCE_TEST_REDIS_URL` (a `redis://host:port` or
 * `rediss://` URL; a database number or credentials in it are kept), else the one `npm test`'s pretest starts on
 * this machine and CI's. Read here only.
 */
export const REDIS_URL = redisUrl(process.env.PARLANCE_TEST_REDIS_URL)

function redisUrl(env: string | undefined): RedisUrl {
  if (env === undefined || env === '') return 'redis://127.0.0.1:6379'
  if (!/^rediss?:\/\/[^/]/.test(env)) throw new Error(`PARLANCE_TEST_REDIS_URL must be a redis:// or rediss:// URL, not ${env}`)
  return env as RedisUrl
}

/** Where REDIS_URL points (for a proxy in front of it). */
export const REDIS_ADDRESS = { host: new URL(REDIS_URL).hostname, port: Number(new URL(REDIS_URL).port || 6379) }

/** REDIS_URL as another Redis user (an ACL test's). */
export function redisUrlAs(user: string, password: string): RedisUrl {
  const u = new URL(REDIS_URL)
  u.username = user
  u.password = password
  return u.toString() as RedisUrl
}

/** REDIS_URL reached through a proxy on 127.0.0.1:`port` (its credentials and database kept). */
export function redisUrlThrough(port: number): RedisUrl {
  const u = new URL(REDIS_URL)
  u.hostname = '127.0.0.1'
  u.port = String(port)
  return u.toString() as RedisUrl
}

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
