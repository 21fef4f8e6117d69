/** CDS_WORKERS: one process by default (issue 39), a positive integer when set. */
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('CDS_WORKERS', () => {
  it('defaults to one process whatever the cores, and takes a positive integer', () => {
    expect(loadConfig({}).workers).toBe(1);
    expect(loadConfig({ CDS_WORKERS: '1' }).workers).toBe(1);
    expect(loadConfig({ CDS_WORKERS: '4' }).workers).toBe(4);
  });

  it('refuses zero, negatives and words, naming the variable', () => {
    for (const value of ['0', '-2', 'many']) {
      expect(() => loadConfig({ CDS_WORKERS: value })).toThrow(/CDS_WORKERS/);
    }
  });
});
