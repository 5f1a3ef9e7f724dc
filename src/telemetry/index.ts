export { extractTraceContext, failSpan, injectTraceHeaders, nameRequest, requestSpan, startRequestSpan, tracer, withTraceHeaders } from './tracer.js'
export { context, ROOT_CONTEXT, trace, type Context, type Span } from './tracer.js'
export {
  endApprovalSpan,
  endChatSpan,
  endRunSpan,
  inToolSpan,
  serverOf,
  startApprovalSpan,
  startChatSpan,
  startRunSpan,
  type ChatOutcome,
  type RunTrace,
} from './spans.js'
