// Issue 22, finding 3: installing Parlance into your own project. The packed tarball is installed into a fresh
// "type": "module" TypeScript project, which type-checks the README's first agent verbatim (NodeNext) and runs
// it; require() from CommonJS and a .ts agent in a "type": "commonjs" project work too. Issue 45: installing the
// package compiles nothing (better-sqlite3 is an optional peer; the SQLite store runs on node:sqlite where Node has
// it). On a Node without node:sqlite the store says to install better-sqlite3, and the project then does; it is not
// compiled again here (about a minute): that install skips scripts and takes this checkout's build of the same
// version, for the same Node.
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { test } from 'node:test'
import { HaiClient, textOf } from '../src/client/index.js'
import { sqliteDrivers } from './support/sqlite-drivers.js'

const run = promisify(execFile)
const ROOT = fileURLToPath(new URL('..', import.meta.url))
const README = readFileSync(join(ROOT, 'README.md'), 'utf8')
const npm = (args: string[], cwd: string, loglevel = 'error') =>
  run('npm', [...args, '--no-audit', '--no-fund', `--loglevel=${loglevel}`], { cwd, maxBuffer: 16 * 1024 * 1024 })

/** The README's first TypeScript block (the agent of "Write your own agent"), as a reader copies it. */
function readmeAgent(): string {
  const block = /```ts\n([\s\S]*?)```/.exec(README)?.[1]
  assert.ok(block, 'the README has a TypeScript example')
  return block
}

test('the packed tarball installs into a "type": "module" project; the README agent type-checks (NodeNext) and runs; require() and a .ts agent in a CommonJS project work', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'parlance-install-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  // Always built afresh: a dist/ left from an earlier checkout would pack (and test) old code.
  const build = await npm(['run', 'build'], ROOT)
  // A clean build log: no Rollup or Vite warnings from the inspector's bundle.
  assert.doesNotMatch(build.stderr, /warn|\(!\)|annotation/i, build.stderr)
  const packed = JSON.parse((await npm(['pack', '--json', '--ignore-scripts', '--pack-destination', dir], ROOT)).stdout) as Array<{
    filename: string
    files: Array<{ path: string }>
  }>
  const tarball = join(dir, packed[0]!.filename)
  const files = packed[0]!.files.map((f) => f.path)
  for (const f of [
    'README.md',
    'docs/DESIGN.md',
    'docs/dialects/hai.md',
    'docs/dialects/agui.md',
    'cjs/esm-only.cjs',
    'dist/index.js',
    'dist/cli/main.js',
  ]) {
    assert.ok(files.includes(f), `${f} is in the tarball`)
  }
  // Every relative link of the packed README (and of the benchmarks page it links) points at a packed file.
  for (const doc of ['README.md', 'BENCHMARKS.md']) {
    for (const [, target] of readFileSync(join(ROOT, doc), 'utf8').matchAll(/\]\((?!https?:|#)([^)#\s]+)/g))
      assert.ok(files.includes(target!), `${doc} links ${target}, which the tarball must have`)
  }

  const app = join(dir, 'app')
  mkdirSync(app)
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'my-app', private: true, type: 'module' }))
  // No install-time script of ours (npm lists any `prepare`/`install` script to the user as a warning) and a clean log.
  const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }
  for (const hook of ['preinstall', 'install', 'postinstall', 'prepare'])
    assert.equal(manifest.scripts?.[hook], undefined, `package.json has no "${hook}" script`)
  // Scripts allowed: nothing the package pulls in has one to run (no native build, no node-gyp).
  const install = await npm(['install', tarball, '--prefer-offline'], app, 'warn')
  assert.doesNotMatch(install.stderr, /warn/i, install.stderr)
  const lock = JSON.parse(readFileSync(join(app, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> }
  const scripted = Object.entries(lock.packages).filter(([, p]) => p.hasInstallScript)
  assert.deepEqual(
    scripted.map(([name]) => name),
    [],
    'no installed package has an install script',
  )
  assert.ok(!existsSync(join(app, 'node_modules/better-sqlite3')), 'better-sqlite3 is an optional peer: not installed')
  const store =
    "import('parlance-gateway/store/sqlite').then((m) => m.createSqliteStore({ file: ':memory:' }).close()).then(() => console.log('sqlite ok'))"
  if (sqliteDrivers.includes('node')) {
    // node:sqlite: the SQLite store runs with nothing else installed.
    assert.equal((await run(process.execPath, ['--input-type=module', '-e', store], { cwd: app })).stdout.trim(), 'sqlite ok')
  } else {
    // Older Node: the store says what to install, and the project installs it (the README's install section).
    const missing = await run(process.execPath, ['--input-type=module', '-e', store], { cwd: app }).then(
      () => '',
      (err: Error & { stderr?: string }) => err.stderr ?? err.message,
    )
    assert.match(missing, /the SQLite store needs the better-sqlite3 package on Node .*npm install better-sqlite3@12/)
    const version = (JSON.parse(readFileSync(join(ROOT, 'node_modules/better-sqlite3/package.json'), 'utf8')) as { version: string }).version
    await npm(['install', `better-sqlite3@${version}`, '--prefer-offline', '--ignore-scripts'], app)
    const native = 'node_modules/better-sqlite3/build/Release'
    mkdirSync(join(app, native), { recursive: true })
    copyFileSync(join(ROOT, native, 'better_sqlite3.node'), join(app, native, 'better_sqlite3.node'))
    assert.equal((await run(process.execPath, ['--input-type=module', '-e', store], { cwd: app })).stdout.trim(), 'sqlite ok')
  }

  writeFileSync(join(app, 'agent.ts'), readmeAgent())
  writeFileSync(
    join(app, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [join(ROOT, 'node_modules/@types')],
      },
      files: ['agent.ts'],
    }),
  )
  const tsc = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], { cwd: app }).catch(
    (err: Error & { stdout?: string }) => ({ stdout: err.stdout || err.message }),
  )
  assert.equal(tsc.stdout, '', 'the README agent type-checks against the installed package')

  const child = spawn(process.execPath, ['--import', join(ROOT, 'node_modules/tsx/dist/esm/index.mjs'), 'agent.ts'], {
    cwd: app,
    env: { ...process.env, PORT: '0', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  t.after(() => child.kill('SIGKILL'))
  let err = ''
  child.stderr.on('data', (d: Buffer) => (err += d.toString()))
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /HAI: (ws:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    child.once('exit', (code) => reject(new Error(`the README agent exited (${code}): ${out}${err}`)))
  })
  const c = await HaiClient.connect({ url })
  t.after(() => c.close())
  c.say('from my project')
  assert.equal(textOf(await c.untilCompleted()), 'You said FROM MY PROJECT!')

  // CommonJS (npm init's default): require() gets the ES module itself on Node >= 20.19 (the "module-sync"
  // condition; older Node gets the README's message from cjs/esm-only.cjs), and a .ts agent in a "type":
  // "commonjs" project loads through the CLI (it died with "Cannot require() ES Module … in a cycle").
  writeFileSync(
    join(app, 'old.cjs'),
    "const { defineAgent, createServer } = require('parlance-gateway'); console.log(typeof defineAgent, typeof createServer)\n",
  )
  assert.equal((await run(process.execPath, ['old.cjs'], { cwd: app })).stdout.trim(), 'function function')
  assert.ok(README.includes("`require('parlance-gateway')` works on Node ≥ 20.19"), 'the README says so')
  const cjsProject = join(app, 'cjs-project')
  mkdirSync(cjsProject)
  writeFileSync(join(cjsProject, 'package.json'), JSON.stringify({ name: 'cjs-project', version: '1.0.0', type: 'commonjs' }))
  writeFileSync(
    join(cjsProject, 'agent.ts'),
    "import { defineAgent } from 'parlance-gateway'\nexport default defineAgent({ name: 'cjs', async run(ctx) { await ctx.say(`cjs: ${ctx.input.text}`) } })\n",
  )
  symlinkSync(join(ROOT, 'node_modules/tsx'), join(app, 'node_modules/tsx'), 'dir')
  const cli = spawn(
    process.execPath,
    [join(app, 'node_modules/parlance-gateway/dist/cli/main.js'), 'serve', '--port', '0', '--store', 'memory', '--agent', 'agent.ts'],
    { cwd: cjsProject, env: { ...process.env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] },
  )
  t.after(() => cli.kill('SIGKILL'))
  let cliErr = ''
  cli.stderr.on('data', (d: Buffer) => (cliErr += d.toString()))
  const cjsUrl = await new Promise<string>((resolve, reject) => {
    let out = ''
    cli.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /HAI:\s+(ws:\/\/\S+)/.exec(out)
      if (m) resolve(m[1]!)
    })
    cli.once('exit', (code) => reject(new Error(`parlance serve --agent agent.ts in a CommonJS project exited (${code}): ${out}${cliErr}`)))
  })
  const c2 = await HaiClient.connect({ url: cjsUrl })
  t.after(() => c2.close())
  c2.say('hello')
  assert.equal(textOf(await c2.untilCompleted()), 'cjs: hello')
})
