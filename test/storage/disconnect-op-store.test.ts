import { disconnectOpStoreCases } from '../conformance/disconnect-op-store.case.js';
import { engines } from '../support/engines.js';

for (const engine of engines) disconnectOpStoreCases(engine);
