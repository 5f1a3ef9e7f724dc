/** Where an HTTP client (AG-UI, AI SDK) checks the server before its first request. */
export interface ServerCheck {
  url: string
  token?: string
  agent?: string
}

/**
 * What the socket clients' `connect` proves, for the HTTP clients, which hold no connection: the server
 * answers at `url`, accepts the token, and serves `agent` when one is named (`GET /inspector/api/info`).
 * Throws an Error naming the URL and what failed, so a wrong port or token shows before the first run.
 */
export async function checkServer(o: ServerCheck): Promise<void> {
  const at = `${o.url}/inspector/api/info`
  let res: Response
  try {
    res = await fetch(at, { headers: o.token ? { authorization: `Bearer ${o.token}` } : {} })
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause
    throw new Error(`cannot reach Parlance at ${o.url}: ${cause?.code ?? cause?.message ?? (err as Error).message}`, { cause: err })
  }
  if (res.status === 401)
    throw new Error(`Parlance at ${o.url} refused the credentials (401): ${o.token ? 'the token is not accepted' : 'the server needs a token'}`)
  if (!res.ok) throw new Error(`${at} answered ${res.status}: is ${o.url} a Parlance server?`)
  const info = (await res.json()) as { agents?: string[] }
  if (o.agent !== undefined && !info.agents?.includes(o.agent)) {
    throw new Error(`Parlance at ${o.url} serves no agent ${JSON.stringify(o.agent)} (it serves ${(info.agents ?? []).join(', ')})`)
  }
}
