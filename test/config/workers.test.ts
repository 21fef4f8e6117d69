/** CDS_WORKERS: the machine's available parallelism by default, a positive integer when set. */
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';

describe('CDS_WORKERS', () => {
  it('defaults to the available parallelism and takes a positive integer', () => {
    expect(loadConfig({}).workers).toBe(availableParallelism());
    expect(loadConfig({ CDS_WORKERS: '1' }).workers).toBe(1);
    expect(loadConfig({ CDS_WORKERS: '4' }).workers).toBe(4);
  });

  it('refuses zero, negatives and words, naming the variable', () => {
    for (const value of ['0', '-2', 'many']) {
      expect(() => loadConfig({ CDS_WORKERS: value })).toThrow(/CDS_WORKERS/);
    }
  });
});
