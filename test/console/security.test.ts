/**
 * The console's defences (issue 34) in headless Chromium against the service on SQLite:
 * - `/console` and its files carry the console's Content-Security-Policy and security headers;
 *   the API and `/docs` do not (their CORS headers are as before);
 * - data that holds HTML (`<img onerror>`, `<script>`) in documents, realtime values, a board,
 *   a nickname (in standings, history, the window around a user and a chosen set), a key name,
 *   rules and test cases is shown as text in every view that shows it:
 *   no script runs, no element is made from it, no CSP or Trusted Types violation is reported;
 * - the admin token is never in `localStorage` (only this tab's `sessionStorage`).
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PASSWORD, adminFixture, type TestAdmin } from '../support/admin.js';
import { startTestApp, type TestApp } from '../support/app.js';
import { CHROMIUM, chromiumAvailable, closeChromium, launchChromium } from '../support/chromium.js';
import { sqliteEngine } from '../support/engines.js';
import { expectUi } from './ui-expect.js';

const ROOT = join(import.meta.dirname, '..', '..');
const required = process.env.CDS_TEST_REQUIRE_SERVICES === '1';
const available = chromiumAvailable('console security browser test');

const IMG = '<img src=x onerror="window.__xss=1">';
const SCRIPT = '<script>window.__xss=1</script>';
/** Markup without a slash, for names that are path segments. */
const SVG = '<svg onload="window.__xss=1">';
const INPUT = '<input autofocus onfocus="window.__xss=1">';
/** Where the console keeps the session in this tab's `sessionStorage` (and where earlier consoles kept it in `localStorage`). */
const TOKEN_KEY = 'cds-console-token';

/** Records CSP (and Trusted Types) violations from the first line of every document the page loads. */
const RECORD_VIOLATIONS = `
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__violations.push(e.violatedDirective + ' ' + e.blockedURI + ' ' + (e.sample || ''));
  });
`;

/** Chromium's line for an API refusal a step expects (a 4xx answer); any other console error counts. */
const EXPECTED_REFUSAL = /^Failed to load resource: the server responded with a status of 4\d\d/;

describe.skipIf(!available && !required)('console security (issue 34) in headless Chromium', () => {
  let t: TestApp;
  let f: Awaited<ReturnType<typeof adminFixture>>;
  let browser: Browser | undefined;
  let base = '';
  let xssUser = 0;
  /** Uncaught errors and console errors of every page; none is expected. */
  const problems: string[] = [];

  const project = () => `/admin/projects/${f.projectId}`;
  const api = async (method: 'GET' | 'PUT' | 'POST' | 'PATCH', url: string, payload?: object) => {
    const res = await t.app.http.inject({ method, url, headers: f.owner.headers, ...(payload ? { payload } : {}) });
    if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };

  beforeAll(async () => {
    if (!available) throw new Error(`${CHROMIUM} is missing and CDS_TEST_REQUIRE_SERVICES=1`);
    execFileSync(process.execPath, [join(ROOT, 'packages', 'console', 'build.mjs')]);
    [t, browser] = await Promise.all([startTestApp(sqliteEngine), launchChromium()]);
    f = await adminFixture(t);
    base = await t.app.http.listen({ port: 0, host: '127.0.0.1' });

    // Untrusted data everywhere the console shows data: a collection and document named with
    // markup, fields and values holding it, realtime keys and values, a board, a league and a
    // player's nickname in its standings and history, a server key's name, a rule expression.
    const store = `/document-store/${f.orgId}/${f.projectId}/docs`;
    await api('PUT', `${store}/${encodeURIComponent(IMG)}/${encodeURIComponent(IMG)}`, {
      data: { name: IMG, note: SCRIPT, [IMG]: SCRIPT, nested: { html: [IMG, SCRIPT] } },
    });
    await api('PUT', `${project()}/realtime/db/xss/${encodeURIComponent(IMG)}`, { value: { [SVG]: SCRIPT } });
    await api('PUT', `${project()}/realtime/db/xss/${encodeURIComponent(SVG)}`, { value: IMG });
    const user = await t.app.services.accounts.createUser(f.projectId, { username: 'xss-user', password: 'pw-123456' });
    xssUser = user.id;
    await api('PATCH', `${project()}/users/${xssUser}`, { nickname: IMG });
    await api('POST', `${project()}/leaderboards`, {
      slug: 'xss',
      name: IMG,
      description: SCRIPT,
      leagues: [{ slug: 'global', name: SCRIPT }],
    });
    await api('POST', `${project()}/leaderboards/xss/stats`, { user_id: xssUser, value: 5 });
    await api('POST', `${project()}/leaderboards/xss/reset`, {});
    await api('POST', `${project()}/leaderboards/xss/stats`, { user_id: xssUser, value: 7 });
    await api('POST', `${project()}/server-keys`, { name: IMG, role: 'viewer' });
    await api('PUT', `${project()}/rules`, {
      rules: {
        documents: [{ match: '{path=**}', allow: { read: `'${IMG}' != '${SCRIPT}'`, write: 'true' } }],
        realtime: [{ match: '{path=**}', allow: { read: 'true', write: 'true' } }],
      },
    });
  });
  afterAll(async () => {
    await closeChromium(browser, t?.app.http.server);
    await t?.close();
  });

  /** A page (in a browser context of its own unless given one) that records its violations, uncaught errors and unexpected console errors. */
  async function newPage(context?: BrowserContext): Promise<Page> {
    if (!browser) throw new Error('no browser');
    const page = await (context ?? (await browser.newContext({ viewport: { width: 1280, height: 860 } }))).newPage();
    page.setDefaultTimeout(5000);
    await page.addInitScript(RECORD_VIOLATIONS);
    page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !EXPECTED_REFUSAL.test(message.text())) {
        problems.push(`console: ${message.text()}`);
      }
    });
    return page;
  }

  async function signIn(page: Page, admin: TestAdmin = f.owner): Promise<string> {
    await page.goto(`${base}/console/`);
    await page.getByLabel('Email', { exact: true }).fill(admin.email);
    await page.getByLabel('Password', { exact: true }).fill(ADMIN_PASSWORD);
    const login = page.waitForResponse((res) => res.url().endsWith('/admin/auth/login'));
    await page.getByRole('button', { name: 'Sign in' }).click();
    const token = ((await (await login).json()) as { access_token: string }).access_token;
    await expectUi(page.getByRole('heading', { level: 1, name: 'main' })).toBeVisible();
    return token;
  }

  const area = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Areas' }).getByRole('link', { name, exact: true }).click();

  /**
   * Nothing the data holds ran or became markup: `window.__xss` unset, no image, inline script,
   * frame or plugin element in the page, no CSP violation, no uncaught or unexpected console error.
   */
  async function expectInert(page: Page, view: string): Promise<void> {
    // A parsed `<img>` fires its `error` once its load fails: give such events time to happen.
    await page.waitForTimeout(200);
    // Strings: the test's TypeScript has no DOM types; the page evaluates them.
    expect(await page.evaluate('typeof window.__xss'), view).toBe('undefined');
    expect(
      await page.evaluate(
        "document.querySelectorAll('img, svg, script:not([src]), iframe, object, embed, [onerror], [onload], [onfocus], [autofocus]').length",
      ),
      view,
    ).toBe(0);
    expect(await page.evaluate("[...document.scripts].map((s) => s.getAttribute('src'))"), view).toEqual([
      './console.js',
    ]);
    expect(await page.evaluate('window.__violations'), view).toEqual([]);
    expect(problems, view).toEqual([]);
  }

  /**
   * Runs a view's steps, then `expectInert`; a step that fails runs `expectInert` first, so the
   * report names a script that ran or a violation rather than only the text that went missing.
   */
  async function inView(page: Page, view: string, steps: () => Promise<void>): Promise<void> {
    try {
      await steps();
    } catch (error) {
      await expectInert(page, view);
      throw error;
    }
    await expectInert(page, view);
  }

  it('serves /console and its files with the CSP and security headers', async () => {
    const origin = new URL(base).host;
    for (const path of ['/console', '/console/', '/console/console.js', '/console/console.css', '/console/none.js']) {
      const res = await fetch(`${base}${path}`, { redirect: 'manual', headers: { origin: 'https://game.example' } });
      expect(res.status, path).toBe(path === '/console' ? 302 : path === '/console/none.js' ? 404 : 200);
      const csp = Object.fromEntries(
        (res.headers.get('content-security-policy') ?? '').split(';').map((directive) => {
          const [name = '', ...sources] = directive.trim().split(/\s+/);
          return [name, sources.join(' ')];
        }),
      );
      expect(csp, path).toEqual({
        'default-src': "'self'",
        'script-src': "'self'",
        'script-src-attr': "'none'",
        'style-src': "'self'",
        'img-src': "'self'",
        'font-src': "'self'",
        'connect-src': `'self' ws://${origin} wss://${origin}`,
        'object-src': "'none'",
        'base-uri': "'none'",
        'form-action': "'none'",
        'frame-ancestors': "'none'",
        'require-trusted-types-for': "'script'",
        'trusted-types': "'none'",
      });
      expect(res.headers.get('x-frame-options'), path).toBe('DENY');
      expect(res.headers.get('x-content-type-options'), path).toBe('nosniff');
      expect(res.headers.get('referrer-policy'), path).toBe('no-referrer');
      expect(res.headers.get('cross-origin-opener-policy'), path).toBe('same-origin');
      expect(res.headers.get('strict-transport-security'), path).toBeNull();
      expect(res.headers.get('x-request-id'), path).toBeTruthy();
    }
    // A Host that is not a plain host name adds nothing to the policy.
    const odd = await t.app.http.inject({ url: '/console/', headers: { host: "x;script-src 'unsafe-inline'" } });
    expect(odd.headers['content-security-policy']).toContain("connect-src 'self' ;");
    expect(odd.headers['content-security-policy']).not.toContain('unsafe-inline');
  });

  it('leaves the API and /docs without the console headers, with CORS as before', async () => {
    const GAME = 'https://game.example';
    const answers = {
      '/healthz': await fetch(`${base}/healthz`, { headers: { origin: GAME } }),
      documents: await fetch(`${base}/documents/docs/saves/s1`, { headers: { ...t.headers, origin: GAME } }),
      'admin documents': await fetch(`${base}/document-store/${f.orgId}/${f.projectId}/collections`, {
        headers: { ...f.owner.headers, origin: GAME },
      }),
      '/docs': await fetch(`${base}/docs`, { headers: { origin: GAME } }),
      '/docs/json': await fetch(`${base}/docs/json`, { headers: { origin: GAME } }),
    };
    for (const [name, res] of Object.entries(answers)) {
      expect(res.status, name).toBeLessThan(500);
      for (const header of [
        'content-security-policy',
        'x-frame-options',
        'referrer-policy',
        'x-content-type-options',
      ]) {
        expect(res.headers.get(header), `${name} ${header}`).toBeNull();
      }
      expect(res.headers.get('access-control-allow-origin'), name).toBe('*');
      expect(res.headers.get('x-request-id'), name).toBeTruthy();
    }
    expect(answers.documents.status).toBe(404);
    expect(answers['admin documents'].status).toBe(200);

    // The Swagger UI still renders the API's description in a browser.
    const page = await newPage();
    await page.goto(`${base}/docs`);
    // Its bundle and the API description are large: a loaded machine takes seconds.
    await page
      .getByRole('heading', { name: /Client Data Service/ })
      .first()
      .waitFor({ timeout: 20_000 });
    expect(await page.evaluate('window.__violations')).toEqual([]);
    await page.context().close();
    expect(problems).toEqual([]);
  });

  it('keeps the admin token out of localStorage: in memory and this tab only', async () => {
    const page = await newPage();
    await page.goto(`${base}/console/`);
    // A token an earlier console left in localStorage is removed on the next load.
    await page.evaluate(`localStorage.setItem('${TOKEN_KEY}', '{"token":"old","expiresAt":9e15}')`);
    await page.reload();
    await expectUi(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    expect(await page.evaluate('localStorage.length')).toBe(0);

    const token = await signIn(page);
    expect(token.length).toBeGreaterThan(20);
    const local = (await page.evaluate('JSON.stringify(Object.entries(localStorage))')) as string;
    expect(local).toBe('[]');
    expect(local).not.toContain(token);
    // The documented choice: sessionStorage of this tab, so a reload keeps the session (§13).
    expect(await page.evaluate(`sessionStorage.getItem('${TOKEN_KEY}')`)).toContain(token);
    await page.reload();
    await expectUi(page.getByRole('heading', { level: 1, name: 'main' })).toBeVisible();
    // Another tab of the same browser does not get the session.
    const other = await newPage(page.context());
    await other.goto(`${base}/console/`);
    await expectUi(other.getByRole('button', { name: 'Sign in' })).toBeVisible();
    await other.close();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expectUi(page.getByRole('button', { name: 'Sign in' })).toBeVisible();
    expect(await page.evaluate('sessionStorage.length + localStorage.length')).toBe(0);
    await expectInert(page, 'sign-in');
    await page.context().close();
  });

  it('shows HTML in data as text in every view: documents, realtime, leaderboards, users, keys, rules', async () => {
    const page = await newPage();
    const sockets: string[] = [];
    page.on('websocket', (ws) => ws.on('framereceived', (frame) => sockets.push(String(frame.payload))));
    await signIn(page);

    // Documents: the tree, the editor, the query runner's table (field names and values).
    await inView(page, 'documents', async () => {
      await page.getByRole('region', { name: 'Collections' }).getByRole('button', { name: IMG }).click();
      await page.getByRole('region', { name: 'Documents' }).getByRole('button', { name: IMG }).click();
      const editor = page.getByLabel('Document JSON', { exact: true });
      await expectUi(editor).toHaveValue(/window\.__xss=1<\/script>/);
      await expectUi(page.getByRole('region', { name: 'Document', exact: true }).getByRole('heading')).toHaveText(
        `${IMG}/${IMG}`,
      );
      const queryForm = page.getByRole('region', { name: 'Query' });
      await queryForm.getByLabel('Collection', { exact: true }).fill(IMG);
      await queryForm.getByRole('button', { name: 'Run' }).click();
      const result = page.getByRole('table', { name: 'Query result' });
      await expectUi(result.getByRole('columnheader', { name: IMG })).toBeVisible();
      await expectUi(result.getByRole('row').nth(1)).toContainText(JSON.stringify(SCRIPT));
    });

    // Realtime: keys as buttons, values in the editor, live over the admin WebSocket (connect-src).
    await inView(page, 'realtime', async () => {
      await area(page, 'Realtime');
      const children = page.getByRole('region', { name: 'Children' });
      await children.getByRole('button', { name: 'xss' }).click();
      await expectUi(children.getByRole('button', { name: SVG })).toBeVisible();
      await children.getByRole('button', { name: IMG }).click();
      await expectUi(page.getByLabel('Value', { exact: true })).toHaveValue(/window\.__xss=1<\/script>/);
      await expect.poll(() => sockets.some((m) => m.includes('"init"'))).toBe(true);
      await api('PUT', `${project()}/realtime/db/xss/${encodeURIComponent(IMG)}/${encodeURIComponent(INPUT)}`, {
        value: SCRIPT,
      });
      await expectUi(children.getByRole('button', { name: INPUT })).toBeVisible();
    });

    // Leaderboards: the board's name and leagues, the nicknames of the standings, history, around and chosen views.
    await inView(page, 'leaderboards', async () => {
      await area(page, 'Leaderboards');
      await page.getByRole('button', { name: `${IMG} (xss)` }).click();
      const panel = page.getByRole('region', { name: 'Leaderboard xss' });
      await expectUi(panel.getByRole('heading').first()).toContainText(IMG);
      await expectUi(panel.getByLabel('League', { exact: true })).toContainText(SCRIPT);
      await expectUi(page.getByRole('table', { name: 'Standings' }).getByRole('row').nth(1)).toContainText(
        `${IMG} (${xssUser})`,
      );
      await page.getByRole('button', { name: 'Show history' }).click();
      await expectUi(page.getByRole('table', { name: 'History' }).getByRole('row').nth(1)).toContainText(IMG);
      // §18: the window around the player and a chosen set holding them; markup typed as ids is refused as text.
      const around = panel.getByRole('form', { name: 'Around a user' });
      await around.getByLabel('User id', { exact: true }).fill(String(xssUser));
      await around.getByRole('button', { name: 'Show around' }).click();
      await expectUi(page.getByRole('table', { name: 'Around user' }).locator('tr[aria-current="true"]')).toContainText(
        `${IMG} (${xssUser})`,
      );
      const chosen = panel.getByRole('form', { name: 'Chosen users' });
      await chosen.getByLabel('User ids', { exact: true }).fill(INPUT);
      await chosen.getByRole('button', { name: 'Show users' }).click();
      await expectUi(chosen.getByRole('alert')).toContainText('user_ids');
      await chosen.getByLabel('User ids', { exact: true }).fill(String(xssUser));
      await chosen.getByRole('button', { name: 'Show users' }).click();
      await expectUi(page.getByRole('table', { name: 'Chosen users' }).getByRole('row').nth(1)).toContainText(
        `${IMG} (${xssUser})`,
      );
    });

    // Users: the nickname in the table and in the edit dialog.
    await inView(page, 'users', async () => {
      await area(page, 'Users');
      const users = page.getByRole('table', { name: 'Users' });
      await expectUi(users.getByRole('row', { name: /xss-user/ })).toContainText(IMG);
      await page.getByRole('button', { name: 'Edit xss-user' }).click();
      const dialog = page.getByRole('dialog', { name: 'Edit user xss-user' });
      await expectUi(dialog.getByLabel('Nickname', { exact: true })).toHaveValue(/^<img src=x onerror=/);
      await page.keyboard.press('Escape');
      await expectUi(dialog).toBeHidden();
    });

    // Keys: a server key's name.
    await inView(page, 'keys', async () => {
      await area(page, 'Keys');
      await expectUi(page.getByRole('button', { name: `Revoke ${IMG}` })).toBeVisible();
    });

    // Rules: the saved ruleset, a validation error about markup, a test case's path in the results.
    await inView(page, 'rules', async () => {
      await area(page, 'Rules');
      const rules = page.getByLabel('Ruleset', { exact: true });
      await expectUi(rules).toHaveValue(/<img src=x onerror=/);
      const ruleset = (await rules.inputValue()) as string;
      await rules.fill(JSON.stringify({ documents: [{ match: '{path=**}', allow: { write: SCRIPT } }] }));
      await page.getByRole('button', { name: 'Check' }).click();
      await expectUi(page.getByRole('region', { name: 'Ruleset editor' }).getByRole('alert')).toContainText(
        'documents[0].allow.write',
      );
      await rules.fill(ruleset);
      await page
        .getByLabel('Test cases', { exact: true })
        .fill(JSON.stringify([{ area: 'documents', method: 'get', path: `${IMG}/${IMG}`, user_id: xssUser }]));
      await page.getByRole('button', { name: 'Run tests' }).click();
      await expectUi(page.getByRole('table', { name: 'Test results' }).getByRole('row').nth(1)).toContainText(
        `documents get ${IMG}/${IMG}`,
      );
    });

    // The page kept the console's CSP all along.
    expect(await page.evaluate('window.__violations')).toEqual([]);
    await page.context().close();
  });
});
