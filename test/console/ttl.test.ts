/**
 * The console's TTL setting on the Documents view (§13, §17) in headless Chromium against the
 * service on SQLite: an owner sets a collection's TTL field and clears it; a viewer reads the
 * setting without the controls.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, adminFixture, type TestAdmin } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { CHROMIUM, chromiumAvailable, closeChromium, launchChromium } from '../support/chromium.js';
import { engines } from '../support/engines.js';
import { expectUi } from './ui-expect.js';

const ROOT = join(import.meta.dirname, '..', '..');
const required = process.env.CDS_TEST_REQUIRE_SERVICES === '1';
const available = chromiumAvailable('console TTL browser test');
const sqlite = engines.find((e) => e.name === 'sqlite');
if (!sqlite) throw new Error('no sqlite engine');

describe.skipIf(!available && !required)('web console (§13): the TTL setting in headless Chromium', () => {
  let t: TestApp;
  let f: Awaited<ReturnType<typeof adminFixture>>;
  let browser: Browser | undefined;
  let base = '';
  /** Uncaught errors of the console's pages; none is expected. */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!available) throw new Error(`${CHROMIUM} is missing and CDS_TEST_REQUIRE_SERVICES=1`);
    execFileSync(process.execPath, [join(ROOT, 'packages', 'console', 'build.mjs')]);
    [t, browser] = await Promise.all([startTestApp(sqlite), launchChromium()]);
    f = await adminFixture(t);
    base = await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    await t.app.services.documents.put(f.projectId, 'invites/later', { expires_at: Date.now() + 3_600_000 });
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await closeChromium(browser, t?.app.http.server);
    await t?.close();
  });

  const ttlOf = async () =>
    (
      await t.app.http.inject({
        method: 'GET',
        url: `/admin/projects/${f.projectId}/ttl/invites`,
        headers: f.owner.headers,
      })
    ).json();

  async function openInvites(admin: TestAdmin): Promise<Page> {
    if (!browser) throw new Error('no browser');
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.setDefaultTimeout(5000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${base}/console/`);
    await page.getByLabel('Email', { exact: true }).fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByLabel('Password', { exact: true }).press('Enter');
    await expectUi(page.getByRole('heading', { level: 1, name: 'main' })).toBeVisible();
    await page.getByRole('region', { name: 'Collections' }).getByRole('button', { name: 'invites' }).click();
    return page;
  }

  it('an owner sets and clears the TTL field of the listed collection', async () => {
    const page = await openInvites(f.owner);
    const ttl = page.getByRole('region', { name: 'Expiring documents' });
    await expectUi(ttl.getByText('Documents of this collection never expire.')).toBeVisible();
    await ttl.getByLabel('TTL field').fill('expires_at');
    await ttl.getByRole('button', { name: 'Set TTL' }).click();
    await expectUi(ttl.getByText(/Documents expire at/)).toBeVisible();
    expect(await ttlOf()).toEqual({ collection: 'invites', field: 'expires_at' });
    // A bad field is refused next to the form, and changes nothing.
    await ttl.getByLabel('TTL field').fill('a____b');
    await ttl.getByRole('button', { name: 'Set TTL' }).click();
    await expectUi(ttl.getByRole('alert')).toBeVisible();
    expect(await ttlOf()).toEqual({ collection: 'invites', field: 'expires_at' });
    await ttl.getByRole('button', { name: 'Clear TTL' }).click();
    await expectUi(ttl.getByText('Documents of this collection never expire.')).toBeVisible();
    expect(await ttlOf()).toEqual({ detail: 'TTL not set' });
    await page.close();
  });

  it('a viewer reads the setting without the controls', async () => {
    await t.app.services.ttl.set(f.projectId, 'invites', 'expires_at');
    const page = await openInvites(f.viewer);
    const ttl = page.getByRole('region', { name: 'Expiring documents' });
    await expectUi(ttl.getByText(/Documents expire at/)).toBeVisible();
    await expectUi(ttl.getByRole('button', { name: 'Set TTL' })).toHaveCount(0);
    await page.close();
  });
});
