/** §12 server functions through the SDK (`functions.call`) against a real server process with a module folder. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CdsError, type Client, createClient } from '../../packages/client/src/index.js';
import { type Service, startService } from './service.js';

const dir = mkdtempSync(join(tmpdir(), 'cds-sdk-functions-'));
writeFileSync(
  join(dir, 'game.ts'),
  `import { defineFunctions, reject } from 'client-data-service/functions';
export default defineFunctions({
  projects: '*',
  rpc: {
    echo: async (_ctx, input) => input,
    whoami: (ctx) => ctx.caller,
    refuse: () => reject(409, 'Not today'),
  },
});
`,
);
let service: Service;
let client: Client;

beforeAll(async () => {
  service = await startService({ CDS_FUNCTIONS_DIR: dir });
  client = createClient({ url: service.url, clientId: service.clientId, clientSecret: service.clientSecret });
  await client.auth.signUp({ username: 'fn_ann', password: 'long-enough-password' });
});
afterAll(async () => {
  client?.close();
  await service?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('functions.call', () => {
  it('resolves with the result, typed by the caller', async () => {
    expect(await client.functions.call<{ n: number[] }>('echo', { n: [1, 2] })).toEqual({ n: [1, 2] });
    expect(await client.functions.call('echo')).toBeNull();
    expect(await client.functions.call('whoami')).toMatchObject({ roles: ['player'] });
  });

  it('rejects with CdsError carrying the function’s status and detail', async () => {
    const refused = await client.functions.call('refuse').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CdsError);
    expect(refused).toMatchObject({ status: 409, message: 'Not today' });
    await expect(client.functions.call('missing')).rejects.toMatchObject({
      status: 404,
      message: 'Function not found',
    });
  });
});
