import { isIP } from 'node:net'

/**
 * Is `host` an address only this machine can reach? `localhost`, 127.0.0.0/8, ::1 and IPv4-mapped 127.x are;
 * every other address is not, and neither is a wildcard ('0.0.0.0', '::', '') or another name (it may resolve
 * to anything).
 */
export function isLoopbackHost(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
  if (h === 'localhost') return true
  if (isIP(h) === 4) return h.startsWith('127.')
  if (isIP(h) !== 6) return false
  // The URL parser writes IPv6 in its shortest form: ::1, and ::ffff:7fXX:XXXX for IPv4-mapped 127.x.
  let v6: string
  try {
    v6 = new URL(`http://[${h}]/`).hostname.slice(1, -1)
  } catch {
    return false // a zone id (fe80::1%eth0): link-local, not loopback
  }
  return v6 === '::1' || /^::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}$/.test(v6)
}
