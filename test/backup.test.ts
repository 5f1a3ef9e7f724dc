// Issue 38, part 3: `parlance backup` copies the SQLite store while a server (another process, holding the data
// directory's lock) keeps writing, and a new server on a new directory holding the copy serves the sessions back.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { HaiClient, textOf } from '../src/client/index.js'
import type { StoredEvent } from '../src/core/index.js'
import { backupSqlite } from '../src/store/sqlite-backup.js'
import { createSqliteStore } from '../src/store/sqlite.js'
import { openSqlite } from '../src/store/sqlite-driver.js'
import { sqliteDrivers } from './support/sqlite-drivers.js'
import { startServer } from './harness.js'
import { cliArgs } from './support/node-args.js'

/** Runs the CLI: until it exits, or (with `banner`) until it prints its banner and keeps running. */
function cli(args: string[], banner = false): Promise<{ code: number | null; out: string; err: string; child: ChildProcess | null }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, cliArgs(...args), { env: { ...process.env, LOG_LEVEL: 'silent', PARLANCE_TOKEN: '' } })
    let out = ''
    let err = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      if (banner && /health:/.test(out)) resolve({ code: null, out, err, child })
    })
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.once('exit', (code) => resolve({ code, out, err, child: null }))
  })
}

/** What the demo agent's "slow" answer streams. */
const SLOW = Array.from({ length: 50 }, (_, i) => `${i + 1} `).join('')

const exitOf = (child: ChildProcess) => new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))

/** A session's events in a SQLite store file (opened as a store, then closed). */
async function eventsIn(file: string, sessionId: string): Promise<StoredEvent[]> {
  const store = createSqliteStore({ file })
  try {
    return await store.readEvents(sessionId, 0, 1_000_000)
  } finally {
    await store.close()
  }
}

/** The text the assistant streamed in a session, read through the inspector API. */
async function textIn(url: string, sessionId: string): Promise<string> {
  let text = ''
  for (let after = 0, more = true; more;) {
    const res = await fetch(`${url}/inspector/api/sessions/${encodeURIComponent(sessionId)}/events?limit=1000&after=${after}`)
    assert.equal(res.status, 200, `session ${sessionId}`)
    const page = (await res.json()) as { events: Array<{ type: string; delta?: string }>; next: number; more: boolean }
    text += page.events
      .filter((e) => e.type === 'text.delta')
      .map((e) => e.delta)
      .join('')
    ;({ next: after, more } = page)
  }
  return text
}

test('backup while a server process writes; a new server on the copy serves the sessions back', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'parlance-backup-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const data = join(dir, 'data')
  const server = await cli(['serve', '--data', data, '--port', '0'], true)
  assert.ok(server.child, server.err)
  t.after(() => server.child?.kill('SIGKILL'))
  const url = /listening on (\S+)/.exec(server.out)![1]!
  assert.ok(existsSync(join(data, 'parlance.db.lock')), 'the running server holds the directory')

  const a = await HaiClient.connect({ url })
  t.after(() => a.close())
  a.say('hello')
  assert.equal(textOf(await a.untilCompleted()), 'Echo: hello')
  const big = await HaiClient.connect({ url })
  t.after(() => big.close())
  big.say('count 3000') // some pages to copy, so the copy takes several steps
  await big.untilCompleted(60_000)

  // A writer the whole time the backups run: one "slow" answer after another (a commit every 100 ms), until both
  // copies are made; its last answer then streams to its end.
  const b = await HaiClient.connect({ url })
  t.after(() => b.close())
  let writing = true
  const writer = (async () => {
    let runs = 0
    for (; writing; runs++) {
      b.say('slow')
      await b.untilCompleted(60_000)
    }
    return runs
  })()
  await b.next('assistant_message_chunk')

  const out = join(dir, 'copy.db')
  const beforeCli = b.lastSeq
  const r = await cli(['backup', '--data', data, '--out', out])
  assert.equal(r.code, 0, r.err)
  assert.match(r.err, /backup: 100% \(\d+ of \d+ pages\)/)
  assert.match(r.err, /backup: wrote .*copy\.db \(\d+\.\d MB, \d+ pages\)/)
  assert.match(r.err, /restore: put it as parlance\.db in a new data directory/)
  // In-process too, one page per step: many steps, each a read transaction of its own. After its second step the copy
  // waits (a condition, not a time) until the server has committed: so the server certainly commits between two
  // steps of this copy, and SQLite starts it over.
  const live = openSqlite(join(data, 'parlance.db'), { readonly: true })
  t.after(() => live.close())
  const version = () => live.pragma('data_version')
  const steps: number[] = []
  const beforeSmall = b.lastSeq
  const small = await backupSqlite({
    dataDir: data,
    out: join(dir, 'copy-2.db'),
    stepPages: 1,
    progress: (copied) => {
      if (steps.push(copied) !== 2) return // (better-sqlite3's first step copies nothing)
      const [v0, until] = [version(), Date.now() + 30_000]
      while (version() === v0) if (Date.now() > until) throw new Error('the server committed nothing in 30 s while a run streamed')
    },
  })
  // Past its second step the copy may go on page by page or, once the server's commits have made it start over twice,
  // take the rest in one step (src/store/sqlite-backup.ts): Node 26's node:sqlite steps slowly enough for the
  // writer's 100 ms commits to do that, so only "more than two progress reports" holds on every driver.
  assert.ok(small.pages > 10 && steps.length > 2, `${small.pages} pages in ${steps.length} steps`)
  assert.ok(small.restarts >= 1, 'the server committed during the copy, which started over')
  assert.deepEqual(readdirSync(dir).sort(), ['copy-2.db', 'copy.db', 'data'], 'no partial files left')

  // The server was not disturbed: its runs finish, it is healthy, and it still holds its lock.
  writing = false
  const runs = await writer
  const said = textOf(b.received)
  assert.equal(said, SLOW.repeat(runs))
  assert.equal((await fetch(`${url}/healthz`)).status, 200)

  // Restore: a new directory holding the copy as parlance.db.
  for (const [name, file] of [
    ['restored', out],
    ['restored-2', join(dir, 'copy-2.db')],
  ] as const) {
    const restored = join(dir, name)
    mkdirSync(restored)
    copyFileSync(file, join(restored, 'parlance.db'))
    const s = await startServer({ store: 'sqlite', dataDir: restored })
    t.after(() => s.close())
    assert.equal(await textIn(s.url, a.sessionId), 'Echo: hello', name)
    assert.match(await textIn(s.url, big.sessionId), /^1 2 3 [\s\S]* 3000 $/, name)
    // The streaming run was caught at some commit: what the copy holds of it is a prefix of what was said.
    assert.ok(said.startsWith(await textIn(s.url, b.sessionId)), name)
  }

  // Each copy holds the writer's session as the server had committed it at one moment during the copy: exactly the
  // live log's first events, at least all it had committed when the copy started. The live log kept every event.
  assert.equal(server.child.kill('SIGTERM') && (await exitOf(server.child)), 0)
  const liveLog = await eventsIn(join(data, 'parlance.db'), b.sessionId)
  assert.deepEqual(
    liveLog.map((e) => e.seq),
    Array.from({ length: b.lastSeq }, (_, i) => i + 1),
    'the live log has every event the client saw, gap-free',
  )
  for (const [file, before] of [
    [out, beforeCli],
    [join(dir, 'copy-2.db'), beforeSmall],
  ] as const) {
    const copied = await eventsIn(file, b.sessionId)
    assert.ok(copied.length >= before, `${file}: ${copied.length} events, ${before} committed before the copy started`)
    assert.deepEqual(copied, liveLog.slice(0, copied.length), `${file}: a prefix of the live log`)
  }
})

for (const driver of sqliteDrivers) {
  test(`a writer committing between every step: after two restarts the rest is copied in one step, and the copy is whole (${driver})`, async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'parlance-backup-'))
    t.after(() => rmSync(dir, { recursive: true, force: true }))
    const writer = openSqlite(join(dir, 'parlance.db'), { driver })
    t.after(() => writer.close())
    writer.pragma('journal_mode = WAL')
    writer.exec('CREATE TABLE t (x TEXT)')
    const insert = writer.prepare('INSERT INTO t VALUES (?)')
    writer.transaction(() => {
      for (let i = 0; i < 2000; i++) insert.run('x'.repeat(200))
    })()
    let writes = 0
    // Another connection commits after every step: SQLite starts the copy over each time. Without the one-step
    // fallback this backup would never end (the test's timeout would fail it).
    const result = await backupSqlite({
      dataDir: dir,
      out: join(dir, 'copy.db'),
      stepPages: 10,
      driver,
      progress: () => {
        insert.run(`write ${++writes}`)
      },
    })
    assert.equal(result.restarts, 2)
    const copy = openSqlite(join(dir, 'copy.db'), { readonly: true, driver })
    t.after(() => copy.close())
    const rows = copy.prepareValue<[], number>('SELECT count(*) FROM t').get()!
    assert.ok(rows >= 2000 && rows <= 2000 + writes, `${rows} rows: a state the writer committed`)
  })
}

test('backup refuses what it cannot do, naming it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'parlance-backup-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  await assert.rejects(backupSqlite({ dataDir: dir, out: join(dir, 'x.db') }), /--data .*: no parlance\.db there/)
  writeFileSync(join(dir, 'parlance.db'), '')
  writeFileSync(join(dir, 'exists.db'), 'keep me')
  await assert.rejects(backupSqlite({ dataDir: dir, out: join(dir, 'exists.db') }), /--out .*exists\.db exists; a backup never overwrites/)
  await assert.rejects(backupSqlite({ dataDir: dir, out: join(dir, 'no', 'x.db') }), /--out .*: no directory/)
  const r = await cli(['backup', '--data', dir])
  assert.equal(r.code, 2)
  assert.match(r.err, /backup needs --out FILE/)
})
