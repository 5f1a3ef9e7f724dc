/**
 * `parlance-gateway/dialect`: what it takes to add a protocol to Parlance without editing it — the codec types, the
 * shared binding runners and the session surface a binding uses. Pass the result to
 * `createServer({ dialects: [myDialect] })`; docs/ADDING-A-DIALECT.md walks through one. Pinned by
 * test/public-api.test.ts.
 */
export { asBuffers, attach, answerErrors, carryOut, collectRun, readBody, resumePoint, sendJson, serveSocket, streamRun } from './binding/index.js'
export type {
  AttachOptions,
  Capabilities,
  Dialect,
  Endpoint,
  EndpointDeps,
  EndpointFactory,
  SocketRun,
  SocketServeOptions,
  SseRunFormat,
} from './binding/index.js'
export { checkJsonShape, parseJson } from './core/index.js'
export type { BatchEncoder, Codec, Command, Connection, DecodeLimits, Decoded, Encoded, ErrorCode, RequestCodec, StoredEvent } from './core/index.js'
export type { Session, SessionManager, Subscription } from './session/index.js'
export type { WsFrame } from './transports/ws.js'
