import { lookup as dnsLookup } from 'node:dns/promises'
import { BlockList, isIP } from 'node:net'

/** One address a host name resolves to. */
export interface ResolvedAddress {
  address: string
  family: 4 | 6
}

/** Resolves a host name to every address it has (default: the system resolver, `dns.lookup` with `all`). */
export type Resolve = (host: string) => Promise<ResolvedAddress[]>

/** Where a checked webhook URL may be connected to: its URL and the one address that was checked. */
export interface WebhookTarget {
  url: URL
  address: string
  family: 4 | 6
}

/** A webhook URL checked: the target to connect to, or why it is refused. */
export type WebhookCheck = { ok: true; target: WebhookTarget } | { ok: false; reason: string }

/** Options of `WebhookGuard`. */
export interface WebhookGuardOptions {
  /**
   * Hosts an operator allows even though they are internal: a host name as the URL spells it (`localhost`,
   * `hooks.internal`) or an IP address (`127.0.0.1`, `::1`), which allows that address under any name.
   * @default []
   */
  allowHosts?: readonly string[]
  /** The resolver (tests inject one, so that no name is looked up). @default dns.lookup, all addresses */
  resolve?: Resolve
}

/**
 * The address classes a webhook may not reach by default, most specific first, as `net.BlockList`s (which also
 * match IPv4-mapped IPv6 addresses against IPv4 rules). The IPv4 inside other IPv6 forms (IPv4-compatible,
 * NAT64, 6to4) is extracted by `embeddedIpv4` and checked against the IPv4 rules too.
 */
const CLASSES: ReadonlyArray<{ name: string; list: BlockList }> = [
  ['broadcast', [['255.255.255.255', 32]], []],
  ['unspecified', [['0.0.0.0', 8]], [['::', 128]]],
  ['loopback', [['127.0.0.0', 8]], [['::1', 128]]],
  ['link-local', [['169.254.0.0', 16]], [['fe80::', 10]]],
  [
    'private',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
    ],
    [['fec0::', 10]],
  ],
  ['shared (CGNAT)', [['100.64.0.0', 10]], []],
  ['unique local', [], [['fc00::', 7]]],
  ['multicast', [['224.0.0.0', 4]], [['ff00::', 8]]],
  [
    'reserved',
    [
      ['192.0.0.0', 24],
      ['192.0.2.0', 24],
      ['198.18.0.0', 15],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
      ['240.0.0.0', 4],
    ],
    [
      ['100::', 64],
      ['2001:db8::', 32],
    ],
  ],
].map(([name, v4, v6]) => {
  const list = new BlockList()
  for (const [net, prefix] of v4 as Array<[string, number]>) list.addSubnet(net, prefix, 'ipv4')
  for (const [net, prefix] of v6 as Array<[string, number]>) list.addSubnet(net, prefix, 'ipv6')
  return { name: name as string, list }
})

/** The eight 16-bit groups of an IPv6 address (`::` expanded, a trailing dotted quad read), or null. */
export function ipv6Groups(address: string): number[] | null {
  if (isIP(address) !== 6) return null
  let text = address.toLowerCase()
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text)
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number]
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined]
  const parse = (s: string | undefined) => (s ? s.split(':').map((g) => parseInt(g, 16)) : [])
  const left = parse(head)
  const right = parse(tail)
  const groups = tail === undefined ? left : [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
  return groups.length === 8 ? groups : null
}

const quadOf = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`

/**
 * The IPv4 address an IPv6 address carries, if it is one of the forms that route to it: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, deprecated but still parsed), NAT64 (`64:ff9b::/96`) or
 * 6to4 (`2002:AABB:CCDD::/16`).
 */
export function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address)
  if (!g) return null
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0)
  if (zeros(5) && g[5] === 0xffff) return quadOf(g[6]!, g[7]!)
  if (zeros(6) && (g[6] !== 0 || g[7]! > 1)) return quadOf(g[6]!, g[7]!)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return quadOf(g[6]!, g[7]!)
  if (g[0] === 0x2002) return quadOf(g[1]!, g[2]!)
  return null
}

/** The class of an internal address (`loopback`, `private`, …), or null for a public one. Pure. */
export function internalClass(raw: string): string | null {
  // A zone (`fe80::1%eth0`) says which interface, not where: the address decides.
  const address = raw.replace(/%.*$/, '')
  const family = isIP(address)
  if (family === 0) return 'malformed'
  const type = family === 4 ? 'ipv4' : 'ipv6'
  for (const c of CLASSES) if (c.list.check(address, type)) return c.name
  const v4 = family === 6 ? embeddedIpv4(address) : null
  if (v4 !== null) {
    const inner = internalClass(v4)
    if (inner !== null) return `${inner} (IPv4 ${v4} inside IPv6)`
  }
  return null
}

/** A host as compared with the allow list: lower case, no IPv6 brackets, no trailing dot. */
const normalHost = (host: string) =>
  host
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '')

const systemResolve: Resolve = async (host) =>
  (await dnsLookup(host, { all: true, verbatim: true })).map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))

/**
 * Decides whether a push-notification URL may be called: http(s) only, no credentials in it, and every address
 * its host resolves to public (not loopback, link-local, private, CGNAT, unique local, unspecified, multicast,
 * broadcast or reserved, also as IPv4 inside IPv6) unless an operator allows the host. The URL parser has already
 * turned numeric spellings (`2130706433`, `0177.0.0.1`, `0x7f.1`) into dotted IPv4. The check returns the address
 * it checked, and delivery connects to exactly that one, so a name cannot resolve elsewhere in between.
 */
export class WebhookGuard {
  private readonly allowed: ReadonlySet<string>
  private readonly resolve: Resolve

  constructor(options: WebhookGuardOptions = {}) {
    this.allowed = new Set((options.allowHosts ?? []).map(normalHost))
    this.resolve = options.resolve ?? systemResolve
  }

  /** Checks `raw` now (resolving its host once). Never throws. */
  async check(raw: string): Promise<WebhookCheck> {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      return { ok: false, reason: `webhook URL ${JSON.stringify(raw.slice(0, 200))} is not a valid URL` }
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, reason: `webhook URL must be http or https, not ${url.protocol}` }
    if (url.username || url.password) return { ok: false, reason: "webhook URL must not carry credentials (use the config's authentication)" }
    const host = normalHost(url.hostname)
    let addresses: ResolvedAddress[]
    const literal = isIP(host)
    if (literal !== 0) addresses = [{ address: host, family: literal === 6 ? 6 : 4 }]
    else {
      try {
        addresses = await this.resolve(host)
      } catch (err) {
        return { ok: false, reason: `webhook host ${host} does not resolve: ${(err as Error).message}` }
      }
      if (addresses.length === 0) return { ok: false, reason: `webhook host ${host} does not resolve` }
    }
    const hostAllowed = this.allowed.has(host)
    for (const a of addresses) {
      const cls = hostAllowed || this.allowed.has(normalHost(a.address)) ? null : internalClass(a.address)
      if (cls !== null) {
        const via = literal !== 0 ? '' : ` resolves to ${a.address}, which`
        return {
          ok: false,
          reason: `webhook host ${host}${via} is a ${cls} address: push notifications may not reach the server's own network (an operator can allow the host: --allow-webhook-host ${host})`,
        }
      }
    }
    const first = addresses[0]!
    return { ok: true, target: { url, address: first.address, family: first.family } }
  }
}
