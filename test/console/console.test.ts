/**
 * The web console (§13) in headless Chromium against the service on SQLite, listening on
 * loopback: each area is clicked through and every edit is checked through the API. Prints the
 * console's gzipped script size and its first load to interactive. With
 * CDS_CONSOLE_SCREENSHOTS=1 it also writes the screenshots the README shows (docs/console/).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, adminFixture, type TestAdmin } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { CHROMIUM, chromiumAvailable, closeChromium, launchChromium } from '../support/chromium.js';
import { engines } from '../support/engines.js';
import { expectUi } from './ui-expect.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SHOTS = process.env.CDS_CONSOLE_SCREENSHOTS === '1' ? join(ROOT, 'docs', 'console') : null;
const required = process.env.CDS_TEST_REQUIRE_SERVICES === '1';
const available = chromiumAvailable('console browser test');
const sqlite = engines.find((e) => e.name === 'sqlite');
if (!sqlite) throw new Error('no sqlite engine');

describe.skipIf(!available && !required)('web console (§13) in headless Chromium', () => {
  let t: TestApp;
  let f: Awaited<ReturnType<typeof adminFixture>>;
  let browser: Browser | undefined;
  let base = '';
  const players: number[] = [];
  /** Uncaught errors of the console's pages; none is expected. */
  const pageErrors: string[] = [];

  beforeAll(async () => {
    if (!available) throw new Error(`${CHROMIUM} is missing and CDS_TEST_REQUIRE_SERVICES=1`);
    execFileSync(process.execPath, [join(ROOT, 'packages', 'console', 'build.mjs')]);
    [t, browser] = await Promise.all([startTestApp(sqlite), launchChromium()]);
    f = await adminFixture(t);
    base = await t.app.http.listen({ port: 0, host: '127.0.0.1' });
    players.push(t.userId);
    for (let i = 0; i < 12; i++) {
      const user = await t.app.services.accounts.createUser(f.projectId, {
        username: `hero${i}`,
        password: 'pw-123456',
      });
      players.push(user.id);
    }
    if (SHOTS) mkdirSync(SHOTS, { recursive: true });
  });
  afterAll(async () => {
    expect(pageErrors).toEqual([]);
    await closeChromium(browser, t?.app.http.server);
    await t?.close();
  });

  /** An API call as `admin` (the owner unless told), answering status and JSON. */
  const api = async (method: 'GET' | 'PUT' | 'POST', url: string, payload?: object, admin: TestAdmin = f.owner) => {
    const res = await t.app.http.inject({ method, url, headers: admin.headers, ...(payload ? { payload } : {}) });
    return { status: res.statusCode, json: res.body ? res.json() : null };
  };
  const project = () => `/admin/projects/${f.projectId}`;
  const shot = async (page: Page, name: string) => {
    if (SHOTS) await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
  };

  async function signIn(admin: TestAdmin, area = 'documents'): Promise<Page> {
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

  it('serves a small script that is interactive quickly over loopback (figures printed)', async () => {
    if (!browser) throw new Error('no browser');
    const script = await fetch(`${base}/console/console.js`);
    expect(script.status).toBe(200);
    const gzipped = gzipSync(Buffer.from(await script.arrayBuffer()), { level: 9 }).length;
    const page = await browser.newPage();
    // Warm the server's file cache once, then time first loads in fresh browser contexts (no cache,
    // no stored session): navigation start to the mark the console sets after its first render,
    // in the page's own clock. The best of three is printed with the first (this machine is shared).
    await page.goto(`${base}/console/`);
    await page.close();
    const loads: number[] = [];
    for (let i = 0; i < 3; i++) {
      const context = await browser.newContext();
      const fresh = await context.newPage();
      await fresh.goto(`${base}/console/`);
      await fresh.getByRole('button', { name: 'Sign in' }).waitFor();
      loads.push(
        Math.round(
          await fresh.evaluate(() => performance.getEntriesByName('cds-console-interactive')[0]?.startTime ?? -1),
        ),
      );
      if (i === 0) await shot(fresh, 'sign-in');
      await context.close();
    }
    const interactiveMs = Math.min(...loads);
    console.log(
      `console: console.js ${gzipped} bytes gzip -9 (limit 153600); first load to interactive ${interactiveMs} ms ` +
        `best of ${loads.join(', ')} (limit 300 ms)`,
    );
    expect(interactiveMs).toBeGreaterThan(0);
    expect(gzipped).toBeLessThanOrEqual(150 * 1024);
    // The 300 ms of §13 is the figure printed; on a shared, loaded CI machine only a gross regression fails.
    expect(interactiveMs).toBeLessThan(5000);
    expect((await fetch(`${base}/console`, { redirect: 'manual' })).status).toBe(302);
  });

  it('signs in, shows the project name and id, survives a reload, signs out', async () => {
    const page = await signIn(f.owner);
    expect(page.url()).toContain(`#/projects/${f.projectId}/documents`);
    await page.reload();
    await expectUi(page.getByRole('heading', { level: 1, name: 'main' })).toBeVisible();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expectUi(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await page.getByLabel('Email', { exact: true }).fill(f.owner.email);
    await page.getByLabel('Password', { exact: true }).fill('wrong-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectUi(page.getByRole('alert')).toBeVisible();
    await page.close();
  });

  it('documents: creates in a dialog, pages, edits the JSON, runs a query, deletes', async () => {
    for (let i = 0; i < 22; i++) {
      await api('PUT', `/document-store/${f.orgId}/${f.projectId}/docs/heroes/h${String(i).padStart(2, '0')}`, {
        data: { level: i },
      });
    }
    const page = await signIn(f.owner);
    await page.getByRole('button', { name: 'New document' }).click();
    const dialog = page.getByRole('dialog', { name: 'New document' });
    await expectUi(dialog.getByLabel('Path', { exact: true })).toBeVisible();
    // Focus stays inside the open dialog however far Tab goes; Escape closes it.
    for (let i = 0; i < 6; i++) {
      await page.keyboard.press('Tab');
      // A string: the test's TypeScript has no DOM types; the page evaluates it.
      expect(await page.evaluate("document.activeElement?.closest('dialog') != null")).toBe(true);
    }
    await page.keyboard.press('Escape');
    await expectUi(dialog).toBeHidden();
    await page.getByRole('button', { name: 'New document' }).click();
    await dialog.getByLabel('Path', { exact: true }).fill('heroes/ann');
    await dialog.getByLabel('JSON', { exact: true }).fill('{"level": 50, "name": "Ann"}');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await expectUi(dialog).toBeHidden();
    const doc = `/document-store/${f.orgId}/${f.projectId}/docs/heroes/ann`;
    expect((await api('GET', doc)).json.data).toEqual({ level: 50, name: 'Ann' });

    const listing = page.getByRole('region', { name: 'Documents' });
    await expectUi(listing.getByRole('button', { name: 'ann' })).toBeVisible();
    await listing.getByRole('button', { name: 'Next page' }).click();
    await expectUi(listing.getByRole('button', { name: 'h21' })).toBeVisible();
    await listing.getByRole('button', { name: 'Previous page' }).click();

    const editor = page.getByLabel('Document JSON', { exact: true });
    await expectUi(editor).toHaveValue(/"Ann"/);
    await editor.fill('{"level": 51}');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expectUi(page.getByRole('status')).toHaveText('Saved heroes/ann');
    expect((await api('GET', doc)).json.data).toEqual({ level: 51 });
    await editor.fill('{"level": ');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expectUi(page.getByRole('region', { name: 'Document' }).getByRole('alert')).toContainText('Document JSON');

    const queryForm = page.getByRole('region', { name: 'Query' });
    await queryForm.getByLabel('Collection', { exact: true }).fill('heroes');
    await queryForm.getByLabel('Where', { exact: true }).fill('level__gte:20');
    await queryForm.getByLabel('Order by', { exact: true }).fill('-level');
    await queryForm.getByLabel('Limit', { exact: true }).fill('2');
    await queryForm.getByRole('button', { name: 'Run' }).click();
    const result = page.getByRole('table', { name: 'Query result' });
    await expectUi(result.getByRole('columnheader').first()).toHaveText('Path');
    await expectUi(result.getByRole('row')).toHaveCount(3);
    await expectUi(result.getByRole('row').nth(1)).toContainText('heroes/ann');
    await shot(page, 'documents');
    await queryForm.getByLabel('Where', { exact: true }).fill('level');
    await queryForm.getByRole('button', { name: 'Run' }).click();
    await expectUi(queryForm.getByRole('alert')).toContainText('Invalid where clause');

    await page.getByRole('button', { name: 'Delete document' }).click();
    await expectUi(page.getByLabel('Document JSON', { exact: true })).toBeHidden();
    expect((await api('GET', doc)).status).toBe(404);
    await page.close();
  });

  it('realtime: browses level by level, shows another write live over the admin socket, saves a value', async () => {
    await api('PUT', `${project()}/realtime/db/rooms/lobby`, { value: { players: 1 } });
    const page = await signIn(f.owner, 'Realtime');
    // Live by default: each level the view shows is a subscription on the admin WebSocket.
    const received: string[] = [];
    page.on('websocket', (ws) => {
      if (ws.url().includes(`${project()}/realtime/ws?access_token=`)) {
        ws.on('framereceived', (frame) => received.push(String(frame.payload)));
      }
    });
    await page.getByRole('region', { name: 'Children' }).getByRole('button', { name: 'rooms' }).click();
    await page.getByRole('region', { name: 'Children' }).getByRole('button', { name: 'lobby' }).click();
    const value = page.getByLabel('Value', { exact: true });
    await expectUi(value).toHaveValue(/"players": 1/);
    await expect.poll(() => received.some((m) => m.includes('"init"') && m.includes('"rooms/lobby"'))).toBe(true);
    await api('PUT', `${project()}/realtime/db/rooms/lobby/players`, { value: 7 });
    // Pushed by the socket as the write commits (§13: within 1 s); the margin is for a loaded CI machine.
    await expect
      .poll(() => received.some((m) => m.includes('"update"') && m.includes('"rooms/lobby/players"')))
      .toBe(true);
    await expectUi(value).toHaveValue(/"players": 7/, { timeout: 2000 });
    await shot(page, 'realtime');
    await value.fill('{"players": 9, "open": true}');
    await page.getByRole('button', { name: 'Save value' }).click();
    await expectUi(value).toHaveValue(/"open": true/);
    expect((await api('GET', `${project()}/realtime/db/rooms/lobby`)).json.value).toEqual({ players: 9, open: true });
    await page.close();
  });

  it('leaderboards: creates a board, submits a stat, pages standings, edits, resets, reads history', async () => {
    const page = await signIn(f.owner, 'Leaderboards');
    await page.getByRole('button', { name: 'New leaderboard' }).click();
    const dialog = page.getByRole('dialog', { name: 'New leaderboard' });
    await dialog.getByLabel('Slug', { exact: true }).fill('weekly');
    await dialog.getByLabel('Name', { exact: true }).fill('Weekly');
    await dialog.getByLabel('Stat max', { exact: true }).fill('1000');
    await dialog.getByRole('button', { name: 'Create leaderboard' }).click();
    await expectUi(dialog).toBeHidden();
    expect((await api('GET', `${project()}/leaderboards/weekly`)).json).toMatchObject({
      name: 'Weekly',
      stat_max: 1000,
    });

    for (let i = 1; i < players.length; i++) {
      await api('POST', `${project()}/leaderboards/weekly/stats`, { user_id: players[i], value: i * 10 });
    }
    const form = page.getByRole('form', { name: 'Submit a stat' });
    await form.getByLabel('User id', { exact: true }).fill(String(players[0]));
    await form.getByLabel('Value', { exact: true }).fill('999');
    await form.getByRole('button', { name: 'Submit stat' }).click();
    const standings = page.getByRole('table', { name: 'Standings' });
    await expectUi(standings.getByRole('row').nth(1)).toContainText('999');
    await expectUi(standings.getByRole('columnheader')).toHaveText(['Rank', 'Player', 'Stat']);
    await form.getByLabel('Value', { exact: true }).fill('5000');
    await form.getByRole('button', { name: 'Submit stat' }).click();
    await expectUi(form.getByRole('alert')).toBeVisible();
    const me = await api('GET', `${project()}/leaderboards/weekly/users?limit=1`);
    expect(me.json.users[0]).toMatchObject({ user_id: players[0], stat_value: 999 });
    await page.getByRole('navigation', { name: 'Standings pages' }).getByRole('button', { name: 'Next page' }).click();
    await expectUi(standings.getByRole('row').nth(1)).toContainText('11');
    await shot(page, 'leaderboards');

    // §18 as the admin sees it: the window around a user (ranks: players[0] first with 999, then
    // players[12] … players[1] with 120 … 10, so players[k] is rank 14 - k), and a chosen set.
    /** A row's cells as text: rank, the player's id in parentheses, stat. */
    const row = (rank: number, k: number, stat: number) => [
      String(rank),
      expect.stringMatching(new RegExp(`\\(${players[k]}\\)$`)),
      String(stat),
    ];
    const around = page.getByRole('form', { name: 'Around a user' });
    await around.getByLabel('User id', { exact: true }).fill(String(players[6]));
    await around.getByLabel('Radius', { exact: true }).fill('2');
    await around.getByRole('button', { name: 'Show around' }).click();
    const nearby = page.getByRole('table', { name: 'Around user' });
    await expectUi(nearby.getByRole('row')).toHaveCount(6);
    await expectUi(nearby.getByRole('row').nth(1).getByRole('cell')).toHaveText(row(6, 8, 80));
    await expectUi(nearby.getByRole('row').nth(5).getByRole('cell')).toHaveText(row(10, 4, 40));
    await expectUi(nearby.locator('tr[aria-current="true"]').getByRole('cell')).toHaveText(row(8, 6, 60));
    await expectUi(page.getByText(`User ${players[6]} in league global: rank 8, stat 60`)).toBeVisible();
    // The last rank's window is shifted inside the league.
    await around.getByLabel('User id', { exact: true }).fill(String(players[1]));
    await around.getByLabel('Radius', { exact: true }).fill('1');
    await around.getByRole('button', { name: 'Show around' }).click();
    await expectUi(nearby.getByRole('row')).toHaveCount(4);
    await expectUi(nearby.getByRole('row').nth(1).getByRole('cell')).toHaveText(row(11, 3, 30));
    await expectUi(nearby.locator('tr[aria-current="true"]').getByRole('cell')).toHaveText(row(13, 1, 10));
    await around.getByLabel('User id', { exact: true }).fill('999999');
    await around.getByRole('button', { name: 'Show around' }).click();
    await expectUi(around.getByRole('alert')).toHaveText('User not found');
    await expectUi(nearby).toBeHidden();

    const chosen = page.getByRole('form', { name: 'Chosen users' });
    await chosen.getByLabel('User ids', { exact: true }).fill(' , ');
    await chosen.getByRole('button', { name: 'Show users' }).click();
    await expectUi(chosen.getByRole('alert')).toContainText('one or more user ids');
    await chosen.getByLabel('User ids', { exact: true }).fill(`${players[3]}, ${players[10]} ,${players[0]} 999999`);
    await chosen.getByRole('button', { name: 'Show users' }).click();
    const set = page.getByRole('table', { name: 'Chosen users' });
    await expectUi(set.getByRole('row')).toHaveCount(4);
    await expectUi(set.getByRole('row').nth(1).getByRole('cell')).toHaveText(row(1, 0, 999));
    await expectUi(set.getByRole('row').nth(2).getByRole('cell')).toHaveText(row(4, 10, 100));
    await expectUi(set.getByRole('row').nth(3).getByRole('cell')).toHaveText(row(11, 3, 30));
    await expectUi(page.getByText('3 of them in league global')).toBeVisible();

    const edit = page.getByRole('form', { name: 'Edit leaderboard' });
    await edit.getByLabel('Name', { exact: true }).fill('Weekly cup');
    // The tournament fields (§18): an end before the start is refused (422 shown), then saved.
    await edit.getByLabel('Players must join (tournament)').check();
    await edit.getByLabel('Max participants', { exact: true }).fill('64');
    await edit.getByLabel('Max submissions per period', { exact: true }).fill('3');
    await edit.getByLabel('Starts at', { exact: true }).fill('2026-12-01T18:00:00+01:00');
    await edit.getByLabel('Ends at', { exact: true }).fill('2026-12-01T16:00:00Z');
    await edit.getByRole('button', { name: 'Save leaderboard' }).click();
    await expectUi(edit.getByRole('alert')).toContainText('must be after starts_at');
    await edit.getByLabel('Ends at', { exact: true }).fill('2026-12-08T18:00:00Z');
    await edit.getByRole('button', { name: 'Save leaderboard' }).click();
    await expectUi(page.getByRole('button', { name: 'Weekly cup (weekly)' })).toBeVisible();
    expect((await api('GET', `${project()}/leaderboards/weekly`)).json).toMatchObject({
      name: 'Weekly cup',
      join_required: true,
      max_participants: 64,
      max_submissions: 3,
      starts_at: '2026-12-01T17:00:00.000Z',
      ends_at: '2026-12-08T18:00:00.000Z',
    });

    await page.getByRole('button', { name: 'Reset now' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reset', exact: true }).click();
    await expectUi(page.getByRole('dialog')).toBeHidden();
    expect((await api('GET', `${project()}/leaderboards/weekly/history`)).json.pagination.total).toBe(13);
    await page.getByRole('button', { name: 'Show history' }).click();
    await expectUi(page.getByRole('table', { name: 'History' }).getByRole('row').nth(1)).toContainText('999');
    await page.close();
  });

  it('users: searches, edits roles and nickname, disables a user', async () => {
    await api('POST', `${project()}/roles`, { name: 'moderator', permissions: ['client.documents'] });
    const page = await signIn(f.editor, 'Users');
    await page.getByLabel('Search', { exact: true }).fill('hero1');
    const table = page.getByRole('table', { name: 'Users' });
    await expectUi(table.getByRole('row')).toHaveCount(4); // hero1, hero10, hero11
    await page.getByRole('button', { name: 'Edit hero10' }).click();
    const dialog = page.getByRole('dialog', { name: 'Edit user hero10' });
    await dialog.getByLabel('Nickname', { exact: true }).fill('Ten');
    await dialog.getByLabel('moderator', { exact: true }).check();
    await dialog.getByRole('button', { name: 'Save user' }).click();
    await expectUi(dialog).toBeHidden();
    await expectUi(table).toContainText('Ten');
    const id = players[11];
    const edited = (await api('GET', `${project()}/users/${id}`)).json;
    expect(edited.nickname).toBe('Ten');
    expect([...edited.roles].sort()).toEqual(['moderator', 'player']);
    await page.getByRole('button', { name: 'Disable hero10' }).click();
    await expectUi(page.getByRole('button', { name: 'Enable hero10' })).toBeVisible();
    expect((await api('GET', `${project()}/users/${id}`)).json.disabled).toBe(true);
    await page.getByLabel('Search', { exact: true }).fill(String(id));
    await expectUi(table.getByRole('row')).toHaveCount(2);
    await shot(page, 'users');
    await page.close();
  });

  it('rules: shows the validation error beside the editor, runs test cases, saves and rolls back', async () => {
    const page = await signIn(f.owner, 'Rules');
    const editor = page.getByLabel('Ruleset', { exact: true });
    await expectUi(editor).toHaveValue(/\{path=\*\*\}/);
    await editor.fill('{"documents": [{"match": "users/{uid}", "allow": {"write": "nope("}}]}');
    await page.getByRole('button', { name: 'Check' }).click();
    const alert = page.getByRole('region', { name: 'Ruleset editor' }).getByRole('alert');
    await expectUi(alert).toContainText('documents[0].allow.write');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await expectUi(alert).toContainText('documents[0].allow.write');
    expect((await api('GET', `${project()}/rules`)).json.revision).toBe(0);

    await editor.fill('{"documents": [{"match": "users/{uid}", "allow": {"read": "request.auth.uid == uid"}}]}');
    await page.getByLabel('Test cases', { exact: true }).fill(
      JSON.stringify([
        { area: 'documents', method: 'get', path: `users/${players[0]}`, user_id: players[0] },
        { area: 'documents', method: 'get', path: `users/${players[0]}`, user_id: players[1] },
      ]),
    );
    await page.getByRole('button', { name: 'Run tests' }).click();
    const results = page.getByRole('table', { name: 'Test results' });
    await expectUi(results.getByRole('row').nth(1)).toContainText('allowed');
    await expectUi(results.getByRole('row').nth(2)).toContainText('denied');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await expectUi(page.getByRole('status')).toHaveText('Saved as revision 1.');
    await editor.fill('{"documents": [], "realtime": []}');
    await page.getByRole('button', { name: 'Save rules' }).click();
    await expectUi(page.getByRole('status')).toHaveText('Saved as revision 2.');
    await shot(page, 'rules');
    await page.getByRole('button', { name: 'Roll back to revision 1' }).click();
    await expectUi(page.getByRole('status')).toHaveText('Rolled back to revision 1 as revision 3.');
    const now = (await api('GET', `${project()}/rules`)).json;
    expect(now.revision).toBe(3);
    expect(now.rules.documents[0].match).toBe('users/{uid}');
    await api('PUT', `${project()}/rules`, { rules: {} });
    await page.close();
  });

  it('keys: creates a server key shown once, revokes it; rotates a client secret', async () => {
    const page = await signIn(f.owner, 'Keys');
    const form = page.getByRole('form', { name: 'New server key' });
    await form.getByLabel('Name', { exact: true }).fill('eu-1');
    await form.getByLabel('Role', { exact: true }).selectOption('viewer');
    await form.getByRole('button', { name: 'Create key' }).click();
    const key = page.getByLabel('Key', { exact: true });
    await expectUi(key).toHaveValue(/^sk_/);
    await expectUi(key).toHaveAttribute('readonly', '');
    const issued = await key.inputValue();
    const keyed = await t.app.http.inject({
      url: `${project()}/leaderboards`,
      headers: { authorization: `Bearer ${issued}` },
    });
    expect(keyed.statusCode).toBe(200);
    expect((await api('GET', `${project()}/server-keys`)).json.server_keys).toMatchObject([
      { name: 'eu-1', role: 'viewer' },
    ]);
    await shot(page, 'keys');
    await page.getByRole('button', { name: 'Revoke eu-1' }).click();
    await expectUi(page.getByRole('button', { name: 'Revoke eu-1' })).toBeHidden();
    expect((await api('GET', `${project()}/server-keys`)).json.server_keys).toEqual([]);

    await page.getByRole('button', { name: `Rotate secret of ${t.project.clientId}` }).click();
    const secret = await page.getByLabel('Client secret', { exact: true }).inputValue();
    const login = await t.app.http.inject({
      method: 'POST',
      url: '/auth/login',
      headers: { 'x-client-id': t.project.clientId, 'x-client-secret': secret },
      payload: { username: 'hero0', password: 'pw-123456' },
    });
    expect(login.statusCode).toBe(200);
    await page.close();
  });

  it('gives a viewer read-only screens and shows refusals where they happen', async () => {
    const page = await signIn(f.viewer);
    await expectUi(page.getByRole('button', { name: 'New document' })).toHaveCount(0);
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Realtime' }).click();
    await expectUi(page.getByLabel('Value', { exact: true })).toHaveAttribute('readonly', '');
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Leaderboards' }).click();
    await page.getByRole('button', { name: 'Weekly cup (weekly)' }).click();
    await expectUi(page.getByRole('table', { name: 'Standings' })).toBeVisible();
    await expectUi(page.getByRole('button', { name: 'New leaderboard' })).toHaveCount(0);
    await expectUi(page.getByRole('button', { name: 'Reset now' })).toHaveCount(0);
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Users' }).click();
    await expectUi(page.getByRole('alert').first()).toContainText('Permission');
    await page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name: 'Keys' }).click();
    await expectUi(page.getByRole('form', { name: 'New server key' })).toHaveCount(0);
    await page.close();
  });
});
