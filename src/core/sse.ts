/**
 * Response headers of every Server-Sent Events stream Parlance writes: no caching or transforming proxies, and
 * `x-accel-buffering: no` so nginx passes each event on at once instead of buffering the response.
 */
export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
} as const
