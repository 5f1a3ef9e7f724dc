import { readFileSync } from 'node:fs'

/**
 * `parlance serve --config FILE`: a JSON object whose keys are serve's long flag names, so a deployment keeps its
 * settings in version control and the file reads like the command line:
 *
 * ```json
 * { "port": 9000, "host": "0.0.0.0", "agent": ["./dist/agent.js", "demo"], "token": "…",
 *   "limit": { "maxConcurrentRuns": 5000 }, "trust-proxy": true }
 * ```
 *
 * A flag taking a value takes a string or a number (`"port": 9000`); a repeatable one also an array; a switch
 * (`trust-proxy`, `no-inspector`) true or false; `limit` an object of whole numbers by limit name (or the flag's
 * `["NAME=VALUE"]`). Environment variables override the file and flags override both; `--limit` adds to the
 * file's limits (a name in both takes the flag's value), every other repeatable flag replaces the file's list.
 * Unknown keys and wrong types are errors naming the key. Everything here is pure but `readConfigFile`.
 */

/** What main.ts tells parseArgs about a flag. */
export interface FlagSpec {
  readonly type: 'string' | 'boolean'
  readonly multiple?: boolean
}

/** Flag values as parseArgs returns them. */
export type FlagValues = Record<string, string | boolean | Array<string | boolean> | undefined>

/** Environment variables that stand for a flag (between the file and the command line). */
export const ENV_FLAGS: Readonly<Record<string, string>> = {
  PORT: 'port',
  PARLANCE_TOKEN: 'token',
  PARLANCE_NODE_ID: 'node-id',
  PARLANCE_REDIS_PREFIX: 'redis-prefix',
}

/** Flags a repeated use of adds to the file's values instead of replacing them. */
const ACCUMULATE = new Set(['limit'])

/** Flags that make no sense inside the file. */
const NOT_IN_FILE = new Set(['config', 'help', 'version'])

const kind = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : `${typeof v} ${JSON.stringify(v)}`

/** One value of a flag taking a string: a string, or a finite number written as the flag would be. */
function scalar(source: string, key: string, v: unknown): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number' && Number.isFinite(v)) return String(v)
  throw new Error(`${source}: "${key}" must be a string or a number (like --${key} VALUE), not ${kind(v)}`)
}

/** `limit`: { name: whole number } (or the flag's ["NAME=VALUE"]) as the flag's NAME=VALUE strings. */
function limits(source: string, v: unknown, names: readonly string[]): string[] {
  if (Array.isArray(v)) return v.map((x) => scalar(source, 'limit', x))
  if (typeof v !== 'object' || v === null)
    throw new Error(`${source}: "limit" must be an object of limits, e.g. {"maxConcurrentRuns": 5000}, not ${kind(v)}`)
  return Object.entries(v).map(([name, n]) => {
    if (names.length > 0 && !names.includes(name)) throw new Error(`${source}: "limit.${name}" is not a limit; one of: ${names.join(', ')}`)
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 0)
      throw new Error(`${source}: "limit.${name}" must be a whole number ≥ 0, not ${kind(n)}`)
    return `${name}=${n}`
  })
}

/**
 * Parses a config file's text into flag values, checking every key against `flags` (unknown keys and wrong types
 * throw, naming the key and `source`). `limitNames` are the known limits (empty: not checked here).
 */
export function parseConfig(text: string, source: string, flags: Readonly<Record<string, FlagSpec>>, limitNames: readonly string[] = []): FlagValues {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new Error(`${source}: not valid JSON (${(err as Error).message})`, { cause: err })
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error(`${source}: must hold a JSON object of settings, not ${kind(json)}`)
  const known = Object.keys(flags).filter((k) => !NOT_IN_FILE.has(k))
  const out: FlagValues = {}
  for (const [key, v] of Object.entries(json)) {
    const spec = NOT_IN_FILE.has(key) ? undefined : flags[key]
    if (!spec) throw new Error(`${source}: unknown key "${key}"; the keys are serve's long flag names: ${known.join(', ')}`)
    if (key === 'limit') out[key] = limits(source, v, limitNames)
    else if (spec.type === 'boolean') {
      if (typeof v !== 'boolean') throw new Error(`${source}: "${key}" must be true or false (a switch, like --${key}), not ${kind(v)}`)
      out[key] = spec.multiple ? [v] : v
    } else if (spec.multiple) out[key] = (Array.isArray(v) ? v : [v]).map((x) => scalar(source, key, x))
    else out[key] = scalar(source, key, v)
  }
  return out
}

/** The settings in force: the file's, then the environment's (`ENV_FLAGS`, when set and not empty), then the flags'. */
export function mergeSettings(file: FlagValues, env: Readonly<Record<string, string | undefined>>, flags: FlagValues): FlagValues {
  const out: FlagValues = { ...file }
  for (const [name, key] of Object.entries(ENV_FLAGS)) {
    const v = env[name]
    if (v !== undefined && v !== '') out[key] = v
  }
  for (const [key, v] of Object.entries(flags)) {
    if (v === undefined) continue
    const before = out[key]
    out[key] = ACCUMULATE.has(key) && Array.isArray(before) && Array.isArray(v) ? [...before, ...v] : v
  }
  return out
}

/** Reads `--config FILE` (the one impure step). */
export function readConfigFile(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    throw new Error(`--config ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message}`, { cause: err })
  }
}

/**
 * parseArgs' values with the config file (when `--config` names one) and the environment beneath them, typed as
 * parseArgs typed them.
 */
export function withConfig<V extends FlagValues>(
  flagValues: V,
  flags: Readonly<Record<string, FlagSpec>>,
  env: Readonly<Record<string, string | undefined>>,
  limitNames: readonly string[] = [],
): V {
  const path = flagValues.config
  const file = typeof path === 'string' ? parseConfig(readConfigFile(path), path, flags, limitNames) : {}
  return mergeSettings(file, env, flagValues) as V
}
