/**
 * The console's Webhooks area (§13, §16) in headless Chromium against the service on SQLite and a
 * real receiver on 127.0.0.1: an editor registers a webhook (its secret shown once), sees a
 * failed delivery with its status, retries it once the receiver answers, and deletes the webhook;
 * a viewer reads without write controls.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, adminFixture, type TestAdmin } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { CHROMIUM, chromiumAvailable, closeChromium, launchChromium } from '../support/chromium.js';
import { engines } from '../support/engines.js';
import { WebhookReceiver } from '../support/webhook-receiver.js';
import { expectUi } from './ui-expect.js';

const ROOT = join(import.meta.dirname, '..', '..');
const required = process.env.CDS_TEST_REQUIRE_SERVICES === '1';
const available = chromiumAvailable('console webhooks browser test');
const sqlite = engines.find((e) => e.name === 'sqlite');
if (!sqlite) throw new Error('no sqlite engine');

describe.skipIf(!available && !required)('web console (§13): webhooks in headless Chromium', () => {
  let t: TestApp;
  let f: Awaited<ReturnType<typeof adminFixture>>;
  let browser: Browser | undefined;
  let base = '';
  const receiver = new WebhookReceiver();
  let up = false;
  /** Uncaught errors of the console's pages; none is expected. */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!available) throw new Error(`${CHROMIUM} is missing and CDS_TEST_REQUIRE_SERVICES=1`);
    execFileSync(process.execPath, [join(ROOT, 'packages', 'console', 'build.mjs')]);
    await receiver.start();
    receiver.answer = () => (up ? 200 : 503);
    [t, browser] = await Promise.all([
      startTestApp(sqlite, {}, { webhookDelivery: { firstRetryMs: 5, giveUpMs: 100 } }),
      launchChromium(),
    ]);
    f = await adminFixture(t);
    base = await t.app.http.listen({ port: 0, host: '127.0.0.1' });
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await closeChromium(browser, t?.app.http.server);
    await t?.close();
    await receiver.stop();
  });

  async function signIn(admin: TestAdmin): Promise<Page> {
    if (!browser) throw new Error('no browser');
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    page.setDefaultTimeout(5000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${base}/console/`);
    await page.getByLabel('Email', { exact: true }).fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    await page.getByLabel('Password', { exact: true }).press('Enter');
    await expectUi(page.getByRole('heading', { level: 1, name: 'main' })).toBeVisible();
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Webhooks', exact: false }).click();
    return page;
  }

  /** The webhook's deliveries as the admin API answers them. */
  const deliveries = async (webhookId: number) =>
    (
      await t.app.http.inject({
        method: 'GET',
        url: `/admin/projects/${f.projectId}/webhooks/${webhookId}/deliveries`,
        headers: f.owner.headers,
      })
    ).json().deliveries as { event_id: string; status: string }[];

  it('registers a webhook with its secret shown once, shows a failed delivery, retries it, deletes the webhook', async () => {
    const page = await signIn(f.editor);
    await expect.poll(() => page.url()).toContain(`#/projects/${f.projectId}/webhooks`);
    await expectUi(page.getByText('No webhooks yet.')).toBeVisible();
    const form = page.getByRole('form', { name: 'New webhook' });
    await form.getByLabel('URL').fill(receiver.url('/console'));
    await form.getByLabel('Events').fill('document.written, realtime.*');
    await form.getByLabel('Description').fill('analytics');
    await form.getByRole('button', { name: 'Create webhook' }).click();
    await expectUi(page.getByRole('status').getByLabel('Signing secret')).toHaveValue(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const table = page.getByRole('table', { name: 'Webhook list' });
    await expectUi(table.getByRole('row')).toHaveCount(2);
    const cells = table.getByRole('row').nth(1).getByRole('cell');
    await expectUi(cells.nth(1)).toHaveText(receiver.url('/console'));
    await expectUi(cells.nth(2)).toHaveText('document.written, realtime.*');
    await expectUi(cells.nth(3)).toHaveText('analytics');
    const webhookId = Number(await cells.nth(0).textContent());

    const put = await t.app.http.inject({
      method: 'PUT',
      url: '/documents/docs/scores/a',
      headers: t.headers,
      payload: { data: { n: 1 } },
    });
    expect(put.statusCode).toBe(200);
    await expect.poll(async () => (await deliveries(webhookId))[0]?.status, { timeout: 10_000 }).toBe('failed');
    const eventId = (await deliveries(webhookId))[0]?.event_id as string;

    await page.getByRole('button', { name: `Deliveries of ${webhookId}` }).click();
    const list = page.getByRole('table', { name: 'Delivery list' });
    await expectUi(list.getByRole('row')).toHaveCount(2);
    const delivery = list.getByRole('row').nth(1).getByRole('cell');
    await expectUi(delivery.nth(0)).toHaveText(eventId);
    await expectUi(delivery.nth(1)).toHaveText('document.written');
    await expectUi(delivery.nth(2)).toHaveText('failed');
    await expectUi(delivery.nth(4)).toHaveText('503');
    await page.getByLabel('Delivery status').selectOption('delivered');
    await expectUi(list.getByRole('row')).toHaveCount(1);
    await page.getByLabel('Delivery status').selectOption('failed');
    await expectUi(list.getByRole('row')).toHaveCount(2);

    up = true;
    await page.getByRole('button', { name: `Retry ${eventId}` }).click();
    await expect.poll(async () => (await deliveries(webhookId))[0]?.status, { timeout: 10_000 }).toBe('delivered');
    await page.getByLabel('Delivery status').selectOption('');
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expectUi(delivery.nth(2)).toHaveText('delivered');
    await expectUi(page.getByRole('button', { name: `Retry ${eventId}` })).toHaveCount(0);
    expect(receiver.delivered('/console').map((r) => r.id)).toEqual([eventId]);

    await page.getByRole('button', { name: `Delete webhook ${webhookId}` }).click();
    await expectUi(table.getByRole('row')).toHaveCount(1);
    await expectUi(page.getByText('No webhooks yet.')).toBeVisible();
    await page.close();
  });

  it('gives a viewer the list and deliveries without write controls', async () => {
    const made = await t.app.http.inject({
      method: 'POST',
      url: `/admin/projects/${f.projectId}/webhooks`,
      headers: f.owner.headers,
      payload: { url: receiver.url('/viewer'), events: ['user.created'] },
    });
    expect(made.statusCode).toBe(201);
    const page = await signIn(f.viewer);
    const table = page.getByRole('table', { name: 'Webhook list' });
    await expectUi(table.getByRole('row')).toHaveCount(2);
    await expectUi(page.getByText('Read-only: your role cannot change webhooks.')).toBeVisible();
    await expectUi(page.getByRole('form', { name: 'New webhook' })).toHaveCount(0);
    await expectUi(page.getByRole('button', { name: /^Delete webhook/ })).toHaveCount(0);
    await page.getByRole('button', { name: `Deliveries of ${made.json().id}` }).click();
    await expectUi(page.getByText('No deliveries yet.')).toBeVisible();
    await page.close();
  });
});
