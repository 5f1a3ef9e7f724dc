// Issue 22, finding 5: `parlance chat` behaves like the terminal tools people know. Driven as a user would,
// through the real CLI with piped stdin and signals: every piped line is sent in order and chat exits after the
// last reply; Ctrl-C (SIGINT) cancels the active reply instead of quitting, and a second one quits; a line typed
// while a reply streams is queued and sent after it; Ctrl-C at an approval prompt rejects it, and the next
// message gets its own answer (not the previous one).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { startServer } from './harness.js'
import { cliChild, exited } from './support/cli-child.js'

const chat = (url: string) => cliChild('chat', ['--url', url])

test('piped stdin: every line is sent in order, each after the previous reply, and chat exits 0 after the last', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = chat(s.url)
  t.after(() => c.kill('SIGKILL'))
  c.stdin.end('count 3\nhello there\nweather in Oslo\n')
  assert.equal(await exited(c), 0, c.out())
  const out = c.out()
  const order = ['agent> 1 2 3', 'agent> Echo: hello there', 'Oslo'].map((x) => out.indexOf(x))
  assert.ok(
    order.every((i) => i >= 0),
    out,
  )
  assert.deepEqual(
    [...order].sort((a, b) => a - b),
    order,
    `answers in order:\n${out}`,
  )
})

test('Ctrl-C cancels the streaming reply instead of quitting; a line typed meanwhile is queued and sent next; Ctrl-C when idle quits', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = chat(s.url)
  t.after(() => c.kill('SIGKILL'))
  await c.until(/you> /)
  c.stdin.write('slow\n')
  await c.until(/agent> 1 /)
  c.stdin.write('hello after\n')
  await c.until(/\[queued/)
  c.kill('SIGINT')
  await c.until(/\[cancelling — Ctrl-C again to quit\]/)
  await c.until(/error cancelled/)
  await c.until(/agent> Echo: hello after/)
  assert.equal(c.exitCode, null, 'still running after one Ctrl-C')
  assert.doesNotMatch(
    c.out(),
    /agent> 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50/,
    'the slow reply was cut short',
  )
  await c.until(/you> [^]*you> $/)
  c.kill('SIGINT')
  assert.equal(await exited(c), 0)
})

test('Ctrl-C at an approval prompt rejects it; the next message gets its own answer', async (t) => {
  const s = await startServer()
  t.after(() => s.close())
  const c = chat(s.url)
  t.after(() => c.kill('SIGKILL'))
  await c.until(/you> /)
  c.stdin.write('delete the notes\n')
  await c.until(/approve\? \[y\/N\] /)
  c.kill('SIGINT')
  await c.until(/\[approval rejected\]/)
  await c.until(/agent> Not approved/)
  c.stdin.write('count 3\n')
  await c.until(/agent> 1 2 3/)
  assert.doesNotMatch(c.out(), /no pending approval/)
  c.stdin.end()
  assert.equal(await exited(c), 0)
})
