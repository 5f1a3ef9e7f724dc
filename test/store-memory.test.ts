import { createMemoryStore } from '../src/store/index.js'
import { runStoreContract } from './store-contract.js'

runStoreContract('memory', () => Promise.resolve(createMemoryStore()))
