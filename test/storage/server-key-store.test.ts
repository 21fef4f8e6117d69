import { serverKeyStoreCases } from '../conformance/server-key-store.case.js';
import { engines } from '../support/engines.js';

for (const engine of engines) serverKeyStoreCases(engine);
