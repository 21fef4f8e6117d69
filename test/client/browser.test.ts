/**
 * §12 in a real browser: the built bundle (dist/browser.js as build.mjs makes it) in headless
 * Chromium signs up, round-trips a document, and sees another client's write through `onValue`.
 * A tiny static server on 127.0.0.1 serves the page and forwards the API; a second test opens the
 * example page (examples/shared-counter) on another origin than the service, so it goes through CORS.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../packages/client/src/index.js';
import { CHROMIUM, chromiumAvailable, closeChromium, launchChromium } from '../support/chromium.js';
import { type Service, startService } from './service.js';
import { type StaticProxy, startStaticProxy } from './static-proxy.js';

const required = process.env.CDS_TEST_REQUIRE_SERVICES === '1';
const available = chromiumAvailable('browser SDK test');

const PAGE = '/__sdk_test__/index.html';
/** The page's globals: the bundle's module (set by the page's module script) and what the test records. */
interface Page {
  sdk: typeof import('../../packages/client/src/index.js');
  location: { origin: string };
  sdkValues?: unknown[];
}
const BUNDLE = '/__sdk_test__/browser.js';

describe.skipIf(!available && !required)('@cds/client in headless Chromium', () => {
  let service: Service | undefined;
  let browser: Browser | undefined;
  let site: StaticProxy | undefined;
  let example: StaticProxy | undefined;
  const scratch = mkdtempSync(join(tmpdir(), 'cds-sdk-browser-'));

  beforeAll(async () => {
    if (!available) throw new Error(`${CHROMIUM} is missing and CDS_TEST_REQUIRE_SERVICES=1`);
    const out = join(scratch, 'browser.js');
    execFileSync(process.execPath, [
      join(import.meta.dirname, '../../packages/client/build.mjs'),
      '--browser-out',
      out,
    ]);
    const bundle = readFileSync(out, 'utf8');
    [service, browser] = await Promise.all([startService(), launchChromium()]);
    const html = `<!doctype html><title>sdk</title><script type="module">import * as sdk from '${BUNDLE}'; globalThis.sdk = sdk;</script>`;
    site = await startStaticProxy(
      { [PAGE]: { type: 'text/html', body: html }, [BUNDLE]: { type: 'text/javascript', body: bundle } },
      Number(new URL(service.url).port),
    );
    const exampleHtml = readFileSync(join(import.meta.dirname, '../../examples/shared-counter/index.html'), 'utf8');
    // Port 1 upstream: nothing is forwarded; the page calls the service on its own origin (CORS).
    example = await startStaticProxy(
      { '/': { type: 'text/html', body: exampleHtml }, '/client.js': { type: 'text/javascript', body: bundle } },
      1,
    );
  });
  afterAll(async () => {
    await closeChromium(browser);
    await site?.close();
    await example?.close();
    await service?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('signs up, round-trips a document and receives another client’s realtime write', async () => {
    if (!service || !browser || !site) throw new Error('not started');
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${site.url}${PAGE}`);
    await page.waitForFunction(() => 'sdk' in globalThis, undefined, { timeout: 10_000 });

    const credentials = { clientId: service.clientId, clientSecret: service.clientSecret };
    const result = await page.evaluate(async ({ clientId, clientSecret }) => {
      const page = globalThis as unknown as Page;
      const { sdk, location } = page;
      const client = sdk.createClient({ url: location.origin, clientId, clientSecret });
      const user = await client.auth.signUp({ username: 'browser_ann', password: 'long-enough-password' });
      const written = await client.doc('notes/n1').set({ text: 'hello from chromium' });
      const read = await client.doc('notes/n1').get();
      const missing = await client.doc('notes/none').get();
      // A second client on the same localStorage is signed in.
      const again = await sdk.createClient({ url: location.origin, clientId, clientSecret }).auth.me();
      const values: unknown[] = [];
      page.sdkValues = values;
      await new Promise<void>((resolve) => {
        client.ref('lobby').onValue((value) => {
          values.push(value);
          resolve();
        });
      });
      return {
        user,
        written,
        read,
        missing,
        again,
        denied: await client
          .doc('odd')
          .get()
          .catch((e) => e.code),
      };
    }, credentials);
    expect(result.user).toMatchObject({ username: 'browser_ann' });
    expect(result.written).toMatchObject({ path: 'notes/n1', created: true });
    expect(result.read).toMatchObject({ id: result.written.id, data: { text: 'hello from chromium' } });
    expect(result.missing).toBeNull();
    expect(result.again.id).toBe(result.user.id);
    expect(result.denied).toBe('invalid-argument');

    const other = createClient({ url: service.url, clientId: service.clientId, clientSecret: service.clientSecret });
    await other.auth.guest('node-writer');
    await other.ref('lobby/bob').set({ ready: true });
    await page.waitForFunction(() => ((globalThis as unknown as Page).sdkValues ?? []).length >= 2);
    const values = await page.evaluate(() => (globalThis as unknown as Page).sdkValues);
    expect(values).toEqual([null, { bob: { ready: true } }]);
    expect(errors).toEqual([]);
    other.close();
    await page.close();
  });

  it('runs the example page from another origin (CORS): a shared counter and the leaderboard', async () => {
    if (!service || !browser || !example) throw new Error('not started');
    const admin = await service.adminToken();
    const board = await fetch(`${service.url}/admin/projects/${service.projectId}/leaderboards`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${admin}` },
      body: JSON.stringify({ slug: 'clicks', name: 'Clicks', operator: 'increment' }),
    });
    expect(board.status).toBe(201);
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${example.url}/`);
    expect(new URL(example.url).origin).not.toBe(new URL(service.url).origin);
    await page.getByLabel('Service URL').fill(service.url);
    await page.getByLabel('Client id').fill(service.clientId);
    await page.getByLabel('Client secret').fill(service.clientSecret);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.locator('#count', { hasText: /^0$/ }).waitFor();
    await page.getByRole('button', { name: '+1' }).click();
    await page.locator('#count', { hasText: /^1$/ }).waitFor();
    await page.locator('#board li', { hasText: /: 1$/ }).waitFor();
    await page.locator('#recent li').first().waitFor();

    const other = createClient({ url: service.url, clientId: service.clientId, clientSecret: service.clientSecret });
    await other.auth.guest('example-other');
    await other.ref('example/counter').set(41);
    await page.locator('#count', { hasText: /^41$/ }).waitFor();
    await other.collection('clicks').add({ by: 'someone else', at: Date.now() + 60_000 });
    await page.locator('#recent li', { hasText: 'someone else' }).waitFor();
    expect(await page.getByRole('alert').textContent()).toBe('');
    expect(errors).toEqual([]);
    other.close();
    await page.close();
  });
});
