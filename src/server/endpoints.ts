import type { EndpointFactory } from './endpoint.js'
import { aguiEndpoint } from './agui-endpoint.js'
import { aisdkEndpoint } from './aisdk-endpoint.js'
import { haiEndpoint } from './hai-endpoint.js'
import { hugaiEndpoint } from './hugai-endpoint.js'
import { humaEndpoint } from './huma-endpoint.js'
import { myagentEndpoint } from './myagent-endpoint.js'
import { inspectorEndpoint } from './inspector-endpoint.js'

/**
 * Every dialect the server mounts, in the order requests are offered to them.
 * Adding a dialect is one line here (see docs/DESIGN.md, "Adding a dialect").
 */
export const ENDPOINTS: readonly EndpointFactory[] = [haiEndpoint, humaEndpoint, aguiEndpoint, myagentEndpoint, hugaiEndpoint, aisdkEndpoint, inspectorEndpoint]
