import { accountStoreCases } from '../conformance/account-store.case.js';
import { engines } from '../support/engines.js';

for (const engine of engines) accountStoreCases(engine);
