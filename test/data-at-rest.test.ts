// Data at rest (issue 50): under the usual umask (022), a new data directory is 0700 and its database files
// (parlance.db, -wal, -shm) and the signing secret 0600; `parlance backup` writes its copy 0600; a server opening
// an existing directory open to group or others warns, naming it.
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { pino } from 'pino'
import { textOf } from '../src/client/index.js'
import { backupSqlite } from '../src/store/sqlite-backup.js'
import { createServer, demoAgent } from '../src/index.js'
import { startServer } from './harness.js'

process.umask(0o022)

const mode = (path: string) => (statSync(path).mode & 0o777).toString(8)

function scratch(t: { after(fn: () => void): void }): string {
  const root = mkdtempSync(join(tmpdir(), 'parlance-rest-'))
  t.after(() => rmSync(root, { recursive: true, force: true }))
  return root
}

test('a new data directory is 0700, its database files and secret 0600, and a backup 0600, under umask 022', async (t) => {
  const root = scratch(t)
  const dir = join(root, 'nested', 'data')
  const s = await startServer({ store: 'sqlite', dataDir: dir })
  t.after(() => s.close())
  const c = await s.hai()
  c.say('hello')
  assert.match(textOf(await c.untilCompleted()), /Echo: hello/)
  await s.server.sessions.store.flush()
  assert.equal(mode(dir), '700')
  for (const f of ['parlance.db', 'parlance.db-wal', 'parlance.db-shm', 'secret']) assert.equal(mode(join(dir, f)), '600', f)
  const out = join(root, 'copy.db')
  await backupSqlite({ dataDir: dir, out })
  assert.equal(mode(out), '600')
  // A file made now, under the same umask, is world-readable: the modes above are the code's doing.
  mkdirSync(join(root, 'plain'))
  assert.equal(mode(join(root, 'plain')), '755')
})

test('opening an existing data directory open to group or others warns, naming it; a private one does not', async (t) => {
  const root = scratch(t)
  const start = async (dir: string) => {
    const lines: string[] = []
    const logger = pino(
      { level: 'warn' },
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString())
          done()
        },
      }),
    )
    const server = await createServer({ agents: [demoAgent], store: 'sqlite', dataDir: dir, logger, heartbeatIntervalMs: 0 })
    await server.close()
    return lines.join('')
  }
  const open = join(root, 'open')
  mkdirSync(open, { mode: 0o755 })
  const warned = await start(open)
  assert.match(warned, /data directory is open to other local users/)
  assert.match(warned, new RegExp(`${open.replace(/[/\\]/g, '.')} \\(0755\\)`))
  assert.match(warned, /chmod 700/)
  const closed = join(root, 'closed')
  mkdirSync(closed, { mode: 0o700 })
  assert.equal(await start(closed), '')
})
