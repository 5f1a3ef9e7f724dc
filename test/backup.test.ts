// Issue 38, part 3: `parlance backup` copies the SQLite store while a server (another process, holding the data
// directory's lock) keeps writing, and a new server on a new directory holding the copy serves the sessions back.
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { HaiClient, textOf } from '../src/client/index.js'
import { backupSqlite } from '../src/store/sqlite-backup.js'
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

  // A run streaming while the backups are taken: the server commits between their steps.
  const b = await HaiClient.connect({ url })
  t.after(() => b.close())
  b.say('slow')
  await b.next('assistant_message_chunk')

  const out = join(dir, 'copy.db')
  const r = await cli(['backup', '--data', data, '--out', out])
  assert.equal(r.code, 0, r.err)
  assert.match(r.err, /backup: 100% \(\d+ of \d+ pages\)/)
  assert.match(r.err, /backup: wrote .*copy\.db \(\d+\.\d MB, \d+ pages\)/)
  assert.match(r.err, /restore: put it as parlance\.db in a new data directory/)
  // In-process too, one page per step: many steps, each a read transaction of its own.
  const steps: number[] = []
  const small = await backupSqlite({ dataDir: data, out: join(dir, 'copy-2.db'), stepPages: 1, progress: (copied) => steps.push(copied) })
  assert.ok(small.pages > 10 && steps.length > 10, `${small.pages} pages in ${steps.length} steps`)
  assert.deepEqual(readdirSync(dir).sort(), ['copy-2.db', 'copy.db', 'data'], 'no partial files left')

  // The server was not disturbed: its run finishes, it is healthy, and it still holds its lock.
  await b.untilCompleted(60_000)
  const said = textOf(b.received)
  assert.match(said, /^1 2 [\s\S]* 50 $/)
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
