/** Limits and timeouts; every one is a server option (see DEFAULT_LIMITS for the defaults and units). */
export interface Limits {
  maxFrameBytes: number
  hardMaxPayloadBytes: number
  maxJsonDepth: number
  maxUserMessageChars: number
  approvalTimeoutMs: number
  clientToolTimeoutMs: number
  maxOutboundBufferBytes: number
  deliveryHighWaterBytes: number
  slowConsumerStallMs: number
  maxPendingEvents: number
  maxPendingEventsTotal: number
  commitWindowMs: number | undefined
  storeStallMs: number
  earlyDecisionWindowMs: number
  mcpSessionIdleMs: number
  replayPageSize: number
  sessionIdleMs: number
  typingMsPerChar: number
  typingMaxMs: number
  messageConfirmTimeoutMs: number
  connectionRatePerSec: number
  connectionBurst: number
  principalRatePerSec: number
  principalBurst: number
  maxSessionsPerPrincipal: number
  maxConcurrentRuns: number
  heartbeatMs: number
  stateExportTtlMs: number
  reconnectWindowMs: number
  ackBufferEvents: number
  maxStateBytes: number
}

/** Defaults for every limit and timeout; all are overridable through server options. */
export const DEFAULT_LIMITS: Readonly<Limits> = {
  /** Largest inbound frame or HTTP body answered with a dialect error (bytes). */
  maxFrameBytes: 1024 * 1024,
  /** Hard ceiling at which the WebSocket library itself closes the socket (bytes). */
  hardMaxPayloadBytes: 16 * 1024 * 1024,
  /** Deepest JSON nesting accepted in an inbound frame. */
  maxJsonDepth: 64,
  /** Longest user message (characters), from the HAI seed. */
  maxUserMessageChars: 10_000,
  /** How long an approval waits for an answer (ms). */
  approvalTimeoutMs: 60_000,
  /** How long a client-side tool call waits for its result (ms). */
  clientToolTimeoutMs: 60_000,
  /** Outbound bytes buffered for one connection before it is dropped as a slow consumer. */
  maxOutboundBufferBytes: 8 * 1024 * 1024,
  /**
   * Unsent bytes at which a connection counts as congested. When every subscriber of a
   * session is congested, the agent waits (flow control) instead of outrunning the network.
   */
  deliveryHighWaterBytes: 1024 * 1024,
  /** How long an agent waits for congested subscribers before they are dropped as slow consumers (ms). */
  slowConsumerStallMs: 10_000,
  /**
   * Events buffered by a session before the agent is made to wait for the store (and for their delivery): also
   * the most one session puts in one event-loop tick, so one long answer cannot hold the loop from other clients.
   */
  maxPendingEvents: 256,
  /** Events buffered by all sessions together before every agent is made to wait for the store (bounds memory). */
  maxPendingEventsTotal: 32_768,
  /**
   * Group-commit window: a store commit starts at least this long after the previous one started (or once 256
   * events wait), so thousands of sessions streaming a token each per tick share commits; the first commit
   * after a quiet spell never waits. 0 commits every event-loop tick (ms). Unset (undefined), the store's own:
   * 0 for SQLite and memory (a commit is a local append; a window only delays tokens), 2 for Redis (a commit
   * is a round trip) and for SQLite with `synchronous: 'full'` (an fsync).
   */
  commitWindowMs: undefined,
  /**
   * Store commits failing this long in a row stop the runs whose events wait (run error 'unavailable', told to
   * their clients at once) and refuse new runs until a commit succeeds; the events are retried, none dropped.
   * 0: retry silently (ms).
   */
  storeStallMs: 10_000,
  /**
   * HugAI: a `governance/approval` naming no pending checkpoint is kept this long and decides a checkpoint
   * raised meanwhile under that name (the tool) or id, for the same principal; 0: recorded only (ms).
   */
  earlyDecisionWindowMs: 10 * 60_000,
  /** MCP: an MCP session with no open request or stream for this long is closed; its client initializes again (ms). */
  mcpSessionIdleMs: 60 * 60_000,
  /** An idle session (no run, no connection) is unloaded from memory after this long; it reloads from the store on use (ms). */
  sessionIdleMs: 5 * 60_000,
  /** Messaging bursts (`ctx.send`): simulated typing time per character of each message (ms). */
  typingMsPerChar: 15,
  /** Messaging bursts: longest simulated typing time of one message (ms). */
  typingMaxMs: 2_000,
  /** Messaging bursts: how long a sent message waits for the client's delivery confirmation (ms), from the HUMA seed. */
  messageConfirmTimeoutMs: 30_000,
  /** Inbound frames/requests per second one connection may send (token bucket refill); 0 disables. */
  connectionRatePerSec: 50,
  /** Burst one connection may send at once (token bucket size). */
  connectionBurst: 100,
  /** Inbound frames/requests per second across all of one principal's connections; 0 disables. */
  principalRatePerSec: 200,
  /** Burst across all of one principal's connections. */
  principalBurst: 400,
  /** Sessions one principal may own (checked when a session is created, against committed sessions); 0 disables. */
  maxSessionsPerPrincipal: 10_000,
  /** Agent runs in progress at once across the server; new input beyond it is answered `unavailable`. 0 disables. */
  maxConcurrentRuns: 1_000,
  /** Protocol-level heartbeat interval (MyAgent `system.heartbeat`); 0 disables (ms). */
  heartbeatMs: 15_000,
  /** Lifetime of a signed state export (MyAgent `user.request_state`) (ms). */
  stateExportTtlMs: 24 * 60 * 60_000,
  /** How long a closed MyAgent connection's unacknowledged events stay in memory for a fast `user.reconnect` (ms); later reconnects replay from the store. */
  reconnectWindowMs: 60_000,
  /** Unacknowledged events a MyAgent connection keeps for fast replay; older ones are dropped (they stay in the store). */
  ackBufferEvents: 4096,
  /** Events read per page when replaying from the store. */
  replayPageSize: 5000,
  /**
   * Largest shared state a session may hold, as JSON (UTF-8 bytes): a `setState` or patch past it is refused
   * (`frame_too_large`, nothing stored). Below `maxOutboundBufferBytes`, so a snapshot of it can always be sent.
   */
  maxStateBytes: 4 * 1024 * 1024,
}
