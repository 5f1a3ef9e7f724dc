import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client'

/** Options of `connectA2a`. */
export interface A2aConnectOptions {
  /** The server's base URL (`http://127.0.0.1:8000`). */
  url: string
  /** The agent (its card at `/a2a/<agent>/.well-known/agent-card.json`); the default agent's card otherwise. */
  agent?: string
  /** Bearer token, when the server has auth on. */
  token?: string
}

/**
 * The official A2A SDK client for a Parlance agent, built from its agent card (Parlance has no A2A client of its
 * own: the SDK's is the reference). See docs/dialects/a2a.md.
 */
export function connectA2a(options: A2aConnectOptions): Promise<Client> {
  const auth = options.token ? `Bearer ${options.token}` : null
  const fetchImpl: typeof fetch = (input, init) => {
    if (!auth) return fetch(input, init)
    const headers = new Headers(init?.headers)
    headers.set('authorization', auth)
    return fetch(input, { ...init, headers })
  }
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  )
  const path = options.agent ? `/a2a/${encodeURIComponent(options.agent)}/.well-known/agent-card.json` : undefined
  return factory.createFromUrl(options.url, path)
}
