/**
 * The console's Functions area (§13, §16) in headless Chromium against the service on SQLite
 * with a module of server functions: the functions loaded for the project with their calls by
 * outcome (a module serving another project is not shown), refreshed on demand.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FunctionRegistry } from '../../src/core/functions/function-registry.js';
import { defineFunctions, reject } from '../../src/functions/index.js';
import { ADMIN_PASSWORD, adminFixture, type TestAdmin } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { CHROMIUM, chromiumAvailable, closeChromium, launchChromium } from '../support/chromium.js';
import { engines } from '../support/engines.js';
import { expectUi } from './ui-expect.js';

const ROOT = join(import.meta.dirname, '..', '..');
const required = process.env.CDS_TEST_REQUIRE_SERVICES === '1';
const available = chromiumAvailable('console functions browser test');
const sqlite = engines.find((e) => e.name === 'sqlite');
if (!sqlite) throw new Error('no sqlite engine');

const functions = FunctionRegistry.of([
  {
    file: '/srv/game/functions/game.ts',
    definition: defineFunctions({
      projects: '*',
      rpc: {
        claimDaily: () => ({ coins: 10 }),
        refuse: () => reject(409, 'Not today'),
        crash: () => {
          throw new Error('boom');
        },
      },
    }),
  },
  {
    file: '/srv/game/functions/elsewhere.ts',
    definition: defineFunctions({ projects: [999_999], rpc: { hidden: () => 1 } }),
  },
]);

describe.skipIf(!available && !required)('web console (§13): server functions in headless Chromium', () => {
  let t: TestApp;
  let f: Awaited<ReturnType<typeof adminFixture>>;
  let browser: Browser | undefined;
  let base = '';
  /** Uncaught errors of the console's pages; none is expected. */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!available) throw new Error(`${CHROMIUM} is missing and CDS_TEST_REQUIRE_SERVICES=1`);
    execFileSync(process.execPath, [join(ROOT, 'packages', 'console', 'build.mjs')]);
    [t, browser] = await Promise.all([startTestApp(sqlite, {}, { functions }), launchChromium()]);
    f = await adminFixture(t);
    base = await t.app.http.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await closeChromium(browser, t?.app.http.server);
    await t?.close();
  });

  /** Calls a function as the test app's player, answering the status. */
  const call = async (name: string) =>
    (await t.app.http.inject({ method: 'POST', url: `/functions/${name}`, headers: t.headers })).statusCode;

  async function signIn(admin: TestAdmin, area: string): Promise<Page> {
    if (!browser) throw new Error('no browser');
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.setDefaultTimeout(5000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${base}/console/`);
    await page.getByLabel('Email', { exact: true }).fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByLabel('Password', { exact: true }).press('Enter');
    await expectUi(page.getByRole('heading', { level: 1, name: 'main' })).toBeVisible();
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: area, exact: false }).click();
    return page;
  }

  it('shows the functions loaded for the project with their calls by outcome, and refreshes them', async () => {
    expect([await call('claimDaily'), await call('claimDaily'), await call('refuse'), await call('crash')]).toEqual([
      200, 200, 409, 500,
    ]);
    // An unknown name is counted nowhere.
    expect(await call('missing')).toBe(404);
    const page = await signIn(f.viewer, 'Functions');
    await expect.poll(() => page.url()).toContain(`#/projects/${f.projectId}/functions`);
    const table = page.getByRole('table', { name: 'Functions' });
    await expectUi(table.getByRole('columnheader')).toHaveText([
      'Function',
      'Kind',
      'Module',
      'Calls',
      'OK',
      'Rejected',
      'Failed',
      'Timed out',
    ]);
    await expectUi(table.getByRole('row')).toHaveCount(4);
    const cells = (row: number) => table.getByRole('row').nth(row).getByRole('cell');
    await expectUi(cells(1)).toHaveText(['claimDaily', 'rpc', 'game.ts', '2', '2', '0', '0', '0']);
    await expectUi(cells(2)).toHaveText(['crash', 'rpc', 'game.ts', '1', '0', '0', '1', '0']);
    await expectUi(cells(3)).toHaveText(['refuse', 'rpc', 'game.ts', '1', '0', '1', '0', '0']);
    await expectUi(page.getByRole('region', { name: 'Modules' })).toContainText('game.ts');
    // Neither the module serving another project nor the operator's folder is shown.
    await expectUi(page.getByText('elsewhere.ts', { exact: true })).toHaveCount(0);
    await expectUi(page.getByText('hidden', { exact: true })).toHaveCount(0);
    await expectUi(page.getByText('/srv/game')).toHaveCount(0);

    expect(await call('claimDaily')).toBe(200);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expectUi(cells(1)).toHaveText(['claimDaily', 'rpc', 'game.ts', '3', '3', '0', '0', '0']);
    await page.close();
  });
});
