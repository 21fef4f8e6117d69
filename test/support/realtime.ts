/** Starts the real app on a loopback port for WebSocket tests (§4). */
import type { AddressInfo } from 'node:net';
import { createProjectWithPlayer, startTestApp, type TestApp, type TestAppOptions } from './app.js';
import type { EngineFixture } from './engines.js';
import { open, type TestSocket } from './ws-client.js';

/** A listening app with its player's WebSocket URL. */
export interface RealtimeTestApp extends TestApp {
  /** `ws://127.0.0.1:<port>/realtime/ws`. */
  wsUrl: string;
  /** Opens a socket as the player (headers), or with other headers. */
  socket(headers?: Record<string, string>): Promise<TestSocket>;
}

/** Builds the app over a fresh storage of `engine` and listens on 127.0.0.1, port chosen by the system. */
export async function startRealtimeApp(
  engine: EngineFixture,
  env: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<RealtimeTestApp> {
  const t = await startTestApp(engine, env, options);
  await t.app.http.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.http.server.address() as AddressInfo;
  const wsUrl = `ws://127.0.0.1:${port}/realtime/ws`;
  return Object.assign(t, {
    wsUrl,
    socket: (headers: Record<string, string> = t.headers) => open(wsUrl, headers),
  });
}

let freshProjects = 0;

/**
 * The app of `shared` as seen by a new project with a player of its own: a test gets its own
 * documents, tree, roles and rules (they are all per project) without starting an app of its own.
 * Its `close` does nothing: `shared` is closed once, after the file's tests.
 */
export async function freshProject(shared: RealtimeTestApp): Promise<RealtimeTestApp> {
  freshProjects += 1;
  const fresh = await createProjectWithPlayer(shared.app, `org-fresh-${freshProjects}`, `fresh${freshProjects}`);
  return {
    ...shared,
    ...fresh,
    socket: (headers: Record<string, string> = fresh.headers) => open(shared.wsUrl, headers),
    close: async () => undefined,
  };
}
