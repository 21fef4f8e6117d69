/** Debian's Chromium for the browser tests, driven by playwright-core with the flags CI uses. */
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
