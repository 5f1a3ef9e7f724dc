import assert from 'node:assert/strict'
import { test } from 'node:test'
import * as api from '../src/index.js'
import * as client from '../src/client/index.js'
import * as dialect from '../src/dialect-kit.js'

// Adding a name to the public API is a decision: update this list in the same commit.
test('the public API is exactly these names', () => {
  assert.deepEqual(Object.keys(api).sort(), [
    'DEFAULT_LIMITS',
    'ERROR_CODES',
    'ParlanceError',
    'createMemoryStore',
    'createServer',
    'defineAgent',
    'demoAgent',
    'tool',
  ])
  assert.deepEqual(Object.keys(dialect).sort(), [
    'answerErrors',
    'asBuffers',
    'attach',
    'carryOut',
    'checkJsonShape',
    'collectRun',
    'parseJson',
    'readBody',
    'resumePoint',
    'sendJson',
    'serveSocket',
    'streamRun',
  ])
  assert.deepEqual(Object.keys(client).sort(), [
    'AguiClient',
    'AiSdkClient',
    'HaiClient',
    'HugaiClient',
    'HumaClient',
    'LangGraphClient',
    'MyAgentClient',
    'OpenAiResponsesClient',
    'RpcError',
    'connectA2a',
    'connectMcp',
    'textOf',
  ])
})

test('defineAgent rejects bad names and missing run', () => {
  assert.throws(() => api.defineAgent({ name: 'has space', run() {} }), /invalid agent name/)
  assert.throws(() => api.defineAgent({ name: 'x' } as never), /needs a run/)
})
