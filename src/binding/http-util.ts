import type { IncomingMessage, ServerResponse } from 'node:http'

/** Writes a JSON response with its length. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(text)), ...headers })
  res.end(text)
}

/** Why a request body could not be read: the HTTP status and a message for the dialect's error shape. */
export class BodyError extends Error {
  override readonly name = 'BodyError'
  constructor(
    readonly status: 413 | 415 | 400,
    message: string,
  ) {
    super(message)
  }
}

/** True when the request's content-type is JSON (`application/json` or `application/*+json`, any parameters). */
export function isJsonContentType(req: IncomingMessage): boolean {
  const ct = req.headers['content-type']
  if (!ct) return false
  const type = ct.split(';', 1)[0]!.trim().toLowerCase()
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))
}

/**
 * Reads a request body as UTF-8 text, at most `maxBytes` (413 past it, checked
 * against Content-Length first and while streaming, so an oversized body is
 * never buffered whole). With `json`, a non-JSON content-type is 415.
 */
export function readBody(req: IncomingMessage, maxBytes: number, opts: { json?: boolean } = {}): Promise<string> {
  if (opts.json && !isJsonContentType(req)) {
    req.resume()
    return Promise.reject(new BodyError(415, `content-type must be application/json, got ${req.headers['content-type'] ?? 'none'}`))
  }
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > maxBytes) {
    req.resume()
    return Promise.reject(new BodyError(413, `request body of ${declared} bytes exceeds the limit of ${maxBytes} bytes`))
  }
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = []
    let size = 0
    let failed = false
    req.on('data', (chunk: Buffer) => {
      if (failed) return
      size += chunk.length
      if (size > maxBytes) {
        failed = true
        parts.length = 0
        reject(new BodyError(413, `request body exceeds the limit of ${maxBytes} bytes`))
        return
      }
      parts.push(chunk)
    })
    req.on('end', () => {
      if (!failed) resolve(parts.length === 1 ? parts[0]!.toString('utf8') : Buffer.concat(parts, size).toString('utf8'))
    })
    req.on('error', (err) => {
      if (!failed) reject(new BodyError(400, `could not read the request body: ${err.message}`))
      failed = true
    })
  })
}
