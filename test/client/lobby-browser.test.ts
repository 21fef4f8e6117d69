/**
 * §17 in a real browser: the lobby example (examples/lobby) in headless Chromium, through the built
 * bundle, served from another origin than the service (CORS). Two players in two browser contexts
 * (each its own localStorage, so its own guest) meet in a room; one page is closed abruptly and
 * the other sees the player leave; the room vanishes when its last player leaves.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../packages/client/src/index.js';
import { CHROMIUM, chromiumAvailable, closeChromium, launchChromium } from '../support/chromium.js';
import { type Service, startService, until } from './service.js';
import { type StaticProxy, startStaticProxy } from './static-proxy.js';

const required = process.env.CDS_TEST_REQUIRE_SERVICES === '1';
const available = chromiumAvailable('lobby example browser test');

describe.skipIf(!available && !required)('examples/lobby in headless Chromium', () => {
  let service: Service | undefined;
  let browser: Browser | undefined;
  let example: StaticProxy | undefined;
  const scratch = mkdtempSync(join(tmpdir(), 'cds-lobby-browser-'));

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
    const html = readFileSync(join(import.meta.dirname, '../../examples/lobby/index.html'), 'utf8');
    // Port 1 upstream: nothing is forwarded; the page calls the service on its own origin (CORS).
    example = await startStaticProxy(
      { '/': { type: 'text/html', body: html }, '/client.js': { type: 'text/javascript', body: bundle } },
      1,
    );
  });
  afterAll(async () => {
    await closeChromium(browser);
    await example?.close();
    await service?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** A player's page in a browser context of its own, connected under `name`. */
  async function player(name: string, errors: string[]): Promise<Page> {
    if (!service || !browser || !example) throw new Error('not started');
    const page = await (await browser.newContext()).newPage();
    page.on('pageerror', (error) => errors.push(`${name}: ${error.message}`));
    await page.goto(`${example.url}/`);
    await page.getByLabel('Service URL').fill(service.url);
    await page.getByLabel('Client id').fill(service.clientId);
    await page.getByLabel('Client secret').fill(service.clientSecret);
    await page.getByLabel('Your name').fill(name);
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.locator('#me', { hasText: `You are ${name}.` }).waitFor();
    await page.locator('#online li', { hasText: name }).waitFor();
    return page;
  }

  const createRoom = async (page: Page, room: string) => {
    await page.getByLabel('Room name').fill(room);
    await page.getByRole('button', { name: 'Create and join' }).click();
    await page.locator('#current', { hasText: `You are in ${room}.` }).waitFor();
  };
  const roomLine = (page: Page, room: string) => page.locator(`#rooms li[data-room="${room}"]`);

  it('shows the players of a room; a page closed abruptly leaves it; the last player out removes it', async () => {
    if (!service || !example) throw new Error('not started');
    expect(new URL(example.url).origin).not.toBe(new URL(service.url).origin);
    const errors: string[] = [];
    const ann = await player('Ann', errors);
    const bob = await player('Bob', errors);
    await ann.locator('#online li', { hasText: 'Bob' }).waitFor();
    await bob.locator('#online li', { hasText: 'Ann' }).waitFor();

    await createRoom(ann, 'arena');
    await roomLine(bob, 'arena').filter({ hasText: 'arena: Ann' }).waitFor();
    await bob.getByRole('button', { name: 'Join arena' }).click();
    await roomLine(ann, 'arena').filter({ hasText: 'arena: Ann, Bob' }).waitFor();
    await roomLine(bob, 'arena').filter({ hasText: 'arena: Ann, Bob' }).waitFor();

    // Ann's tab goes away without leaving the room: the service runs her on-disconnect delete.
    await ann.close({ runBeforeUnload: false });
    await roomLine(bob, 'arena').filter({ hasText: 'arena: Bob', hasNotText: 'Ann' }).waitFor();
    await bob.locator('#online li', { hasText: 'Ann' }).waitFor({ state: 'detached' });
    expect(await bob.locator('#online li').allTextContents()).toEqual(['Bob']);

    // Bob moves to a room of his own: arena loses its last player and vanishes.
    await createRoom(bob, 'dojo');
    await roomLine(bob, 'arena').waitFor({ state: 'detached' });
    await roomLine(bob, 'dojo').filter({ hasText: 'dojo: Bob' }).waitFor();

    // Bob's page closes too: nothing is left of the lobby, as another client sees.
    const watcher = createClient({ url: service.url, clientId: service.clientId, clientSecret: service.clientSecret });
    await watcher.auth.guest('lobby-watcher');
    await bob.close({ runBeforeUnload: false });
    const lobby: unknown[] = [];
    watcher.ref('lobby').onValue((value) => lobby.push(value));
    await until(() => lobby.length > 0 && lobby.at(-1) === null);
    expect(await watcher.ref('lobby').get()).toBeNull();
    expect(errors).toEqual([]);
    watcher.close();
  });
});
