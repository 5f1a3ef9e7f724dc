// A small CopilotKit app, as a user would write one, with Parlance behind the CopilotKit runtime as its AG-UI
// agent: `?ui=v1` uses the v1 hooks, `?ui=v2` the v2 ones. Both render the same plain UI, which the compat test
// drives in Chromium: messages (#messages li[data-role]), an input (#input, #send), the approval card the
// interrupt hook renders (#approval with #approve / #reject), the shared state (#state) and the number of times
// the frontend tool ran (#tool-runs).
import { createRoot } from 'react-dom/client'
import { V1App } from './v1.jsx'
import { V2App } from './v2.jsx'

const ui = new URLSearchParams(location.search).get('ui')
createRoot(document.getElementById('root')).render(ui === 'v1' ? <V1App /> : <V2App />)
