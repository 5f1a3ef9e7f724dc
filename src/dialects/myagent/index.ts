import { decode } from './decode.js'
import { encode, encodeError, encodeSystem, view } from './encode.js'

/** The MyAgent codec: pure functions. */
export const myagent = { decode, encode, encodeError, encodeSystem, view }
export { decode } from './decode.js'
export type { DecodedRequest, MyAgentRequest } from './decode.js'
export { encode, encodeError, encodeSystem, view } from './encode.js'
export { MYAGENT_ERROR } from './errors.js'
export type { MyAgentEvent, MyAgentView } from './encode.js'
