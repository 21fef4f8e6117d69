/** §12 server functions through the SDK (`functions.call`) against a real server process with a module folder. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Fetch } from '../../packages/client/src/http.js';
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
    crash: () => {
      throw new Error('boom');
    },
    slow: () => new Promise((resolve) => setTimeout(() => resolve('late'), 400)),
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

/** A client whose REST requests are recorded, signed up, with its socket open (a subscription's first value came). */
async function clientOnSocket(username: string): Promise<{ client: Client; rest: string[] }> {
  const rest: string[] = [];
  const recording: Fetch = (url, init) => {
    rest.push(`${init.method} ${new URL(url).pathname}`);
    return fetch(url, init);
  };
  const made = createClient({
    url: service.url,
    clientId: service.clientId,
    clientSecret: service.clientSecret,
    fetch: recording,
  });
  await made.auth.signUp({ username, password: 'long-enough-password' });
  await new Promise<void>((resolve) => made.ref(`rooms/${username}`).onValue(() => resolve()));
  rest.length = 0;
  return { client: made, rest };
}

/** What a call answered: its result, or its error's status, detail, code and message. */
const outcome = (client: Client, name: string, input?: unknown) =>
  client.functions.call(name, input).then(
    (result) => ({ result }),
    (error: unknown) =>
      error instanceof CdsError
        ? { status: error.status, detail: error.detail, code: error.code, message: error.message }
        : { other: String(error) },
  );

describe('functions.call over the socket (§12, §16)', () => {
  it('goes over the open socket with the results and errors REST gives', async () => {
    const { client: live, rest } = await clientOnSocket('fn_live');
    try {
      const cases: [string, unknown][] = [
        ['echo', { n: [1, 2] }],
        ['echo', undefined],
        ['refuse', null],
        ['missing', null],
        ['crash', null],
      ];
      for (const [name, input] of cases) {
        const overSocket = await outcome(live, name, input);
        const overRest = await outcome(client, name, input);
        expect(overSocket, name).toEqual(overRest);
      }
      expect(await outcome(live, 'refuse')).toEqual({
        status: 409,
        detail: 'Not today',
        code: 'precondition-failed',
        message: 'Not today',
      });
      expect(await outcome(live, 'crash')).toMatchObject({ status: 500, detail: 'Function failed', code: 'network' });
      expect(await outcome(live, 'missing')).toMatchObject({ status: 404, code: 'not-found' });
      expect(await live.functions.call('whoami')).toMatchObject({ roles: ['player'] });
      // None of these went over REST.
      expect(rest.filter((request) => request.includes('/functions/'))).toEqual([]);
    } finally {
      live.close();
    }
  });

  it('uses REST while the socket is not open, and for a large input', async () => {
    const { client: live, rest } = await clientOnSocket('fn_rest');
    try {
      const large = { text: 'x'.repeat(70 * 1024) };
      expect(await live.functions.call('echo', large)).toEqual(large);
      expect(rest).toEqual(['POST /functions/echo']);
      live.close();
      expect(await live.functions.call('echo', 7)).toBe(7);
      expect(rest).toEqual(['POST /functions/echo', 'POST /functions/echo']);
    } finally {
      live.close();
    }
  });

  it('rejects a call whose connection drops before its answer with network (status 0), without sending it again', async () => {
    const { client: live, rest } = await clientOnSocket('fn_drop');
    try {
      const pending = outcome(live, 'slow');
      live.socket.reconnect();
      expect(await pending).toMatchObject({ status: 0, code: 'network' });
      expect(rest).toEqual([]);
    } finally {
      live.close();
    }
  });
});
