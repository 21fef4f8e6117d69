/** Runs the `cds` command (bundled by cli-bundle.ts) as a child process with only the given settings. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { CLI_BUNDLE } from './cli-bundle.js';

const ROOT = join(import.meta.dirname, '..', '..');

/** What a `cds` run printed and how it exited. */
export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A `cds` runner on an SQLite data directory: no DATABASE_URL or JWT secret leaks in from the
 * environment; `extraEnv` adds settings (REDIS_URL...).
 */
export function cdsRunner(
  dataDir: string,
  extraEnv: Record<string, string> = {},
): (...args: string[]) => Promise<RunResult> {
  const env = {
    ...process.env,
    CDS_DATA_DIR: dataDir,
    DATABASE_URL: '',
    CDS_JWT_SECRET: '',
    CDS_LOG_LEVEL: 'silent',
    ...extraEnv,
  };
  return (...args) =>
    new Promise((resolve) => {
      execFile(process.execPath, [CLI_BUNDLE, ...args], { cwd: ROOT, env }, (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      });
    });
}
