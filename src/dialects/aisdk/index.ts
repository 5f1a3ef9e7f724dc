export { decodeChat } from './decode.js'
export type { DecodedChat } from './decode.js'
export { DONE, encode, ending, finish, start, UI_STREAM_HEADERS } from './encode.js'
export type { ChatRequest, UIPart } from './schema.js'
