import { HTTP_STATUS } from '../../core/index.js'

/** HTTP status of each error code, for errors answered before the event stream starts. */
export const AGUI_HTTP_STATUS = HTTP_STATUS
