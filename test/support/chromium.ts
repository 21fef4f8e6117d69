/** Debian's Chromium for the browser tests, driven by playwright-core with the flags CI uses. */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Whether Chromium is installed; says what happens when it is not (skipped, or failed under CDS_TEST_REQUIRE_SERVICES=1). */
export function chromiumAvailable(suite: string): boolean {
  const available = existsSync(CHROMIUM);
  if (!available) {
    const required = process.env.CDS_TEST_REQUIRE_SERVICES === '1';
    console.log(
      `${suite}: ${CHROMIUM} is missing (apt-get install chromium)${required ? '; CDS_TEST_REQUIRE_SERVICES=1, so it fails' : ', skipped'}`,
    );
  }
  return available;
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
    ],
  });
}

/**
 * Closes the browser, waiting at most `ms`: a Chromium that does not exit in time (seen once on a
 * loaded machine, the suite's afterAll then timing out after 60 s) is killed, with every Chromium
 * this test process started, and says so on the console. `server`: the test app's HTTP server,
 * whose connections from the browser are then closed.
 */
export async function closeChromium(
  browser: Browser | undefined,
  server?: { closeAllConnections(): void },
  ms = 10_000,
): Promise<void> {
  if (!browser) return;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), ms);
  });
  const outcome = await Promise.race([browser.close().then(() => 'closed' as const), late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    console.warn(`Chromium did not close within ${ms} ms; killing it`);
    spawnSync('pkill', ['-KILL', '-P', String(process.pid), 'chromium']);
  }
  // Connections the browser leaves on the test app's server (3 still open after it closed, in the
  // full `npm test`) can hold the app's close: the security suite's afterAll timed out so, twice.
  server?.closeAllConnections();
}
