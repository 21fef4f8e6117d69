/**
 * Waiting assertions on Playwright locators for vitest (playwright-core has no `expect`): each
 * polls until it holds or `timeout` ms (default 5 s) pass.
 */
import type { Locator } from 'playwright-core';
import { expect } from 'vitest';

const DEFAULT_TIMEOUT = 5000;

export function expectUi(locator: Locator) {
  const poll = <T>(read: () => Promise<T>, timeout = DEFAULT_TIMEOUT) => expect.poll(read, { timeout, interval: 50 });
  const text = async () => ((await locator.count()) > 0 ? await locator.first().innerText() : '');
  return {
    toBeVisible: () => locator.first().waitFor({ state: 'visible', timeout: DEFAULT_TIMEOUT }),
    toBeHidden: () => locator.first().waitFor({ state: 'hidden', timeout: DEFAULT_TIMEOUT }),
    toHaveCount: (count: number) => poll(() => locator.count()).toBe(count),
    toHaveValue: (value: RegExp, options: { timeout?: number } = {}) =>
      poll(() => locator.inputValue(), options.timeout).toMatch(value),
    toHaveText: (value: string | string[]) =>
      Array.isArray(value)
        ? poll(async () => (await locator.allInnerTexts()).map((s) => s.trim())).toEqual(value)
        : poll(async () => (await text()).trim()).toBe(value),
    toContainText: (value: string) => poll(text).toContain(value),
    toHaveAttribute: (name: string, value: string) => poll(() => locator.getAttribute(name)).toBe(value),
  };
}
