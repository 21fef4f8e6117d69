/**
 * A server under test in its own process (the service, or the bare baselines): started with
 * `node` (`--import tsx` for a TypeScript script), polled until it answers, measured (RSS from
 * /proc), stopped with SIGTERM (SIGKILL after a bounded wait). Its output goes to a log file, as a
 * deployment's would.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** The repository root (the service's working directory). */
export const ROOT = fileURLToPath(new URL('..', import.meta.url));

const POLL_MS = 20;
// USER_HZ of /proc/<pid>/stat: 100 on every Linux architecture Node supports.
const CLOCK_TICKS = 100;
const STOP_GRACE_MS = 15_000;

/** The Node options of `npm start` (package.json), so the service runs as deployed. */
export function startScriptNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string };
  };
  return pkg.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** The environment of this process without the service's own variables, plus `extra`. */
export function cleanEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value === undefined || name.startsWith('CDS_') || name === 'DATABASE_URL' || name === 'REDIS_URL') continue;
    env[name] = value;
  }
  return { ...env, ...extra };
}

/** Resolves after `ms`; the timer does not keep the process alive. */
export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** A running child server. */
export class ChildServer {
  private exitCode: number | null = null;
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    readonly logFile: string,
    /** Milliseconds from spawn until `waitFor` first saw the ready answer. */
    public readyMs = 0,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exitCode = code ?? (signal ? -1 : 0);
        resolve();
      });
    });
  }

  /**
   * Spawns `node [nodeArgs] <script>` in the repository root with exactly `env`; a `.ts` script
   * (the sources, the baselines) runs through tsx (`--import tsx`), a built `.js` one without it.
   */
  static spawn(script: string, env: Record<string, string>, logFile: string, nodeArgs: string[] = []): ChildServer {
    const fd = openSync(logFile, 'a');
    const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
    try {
      const child = spawn(process.execPath, [...nodeArgs, ...loader, script], {
        cwd: ROOT,
        env,
        stdio: ['ignore', fd, fd],
      });
      return new ChildServer(child, logFile);
    } finally {
      closeSync(fd);
    }
  }

  /** The process id. */
  get pid(): number {
    return this.child.pid ?? 0;
  }

  /** Polls `url` until it answers `status`; the time since spawn becomes `readyMs`. */
  async waitFor(url: string, spawnedAt: number, timeoutMs = 60_000, status = 200): Promise<number> {
    const deadline = spawnedAt + timeoutMs;
    while (performance.now() < deadline) {
      if (this.exitCode !== null) throw new Error(`server exited with ${this.exitCode}:\n${this.logTail()}`);
      const answered = await fetch(url).then(
        (response) => response.status,
        () => 0,
      );
      if (answered === status) {
        this.readyMs = performance.now() - spawnedAt;
        return this.readyMs;
      }
      await sleep(POLL_MS);
    }
    throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms:\n${this.logTail()}`);
  }

  /** Polls the server's output until it contains `text`; the time since spawn becomes `readyMs`. */
  async waitForLog(text: string, spawnedAt: number, timeoutMs = 60_000): Promise<number> {
    while (performance.now() < spawnedAt + timeoutMs) {
      if (this.exitCode !== null) throw new Error(`server exited with ${this.exitCode}:\n${this.logTail()}`);
      if (readFileSync(this.logFile, 'utf8').includes(text)) {
        this.readyMs = performance.now() - spawnedAt;
        return this.readyMs;
      }
      await sleep(POLL_MS);
    }
    throw new Error(`'${text}' not logged within ${timeoutMs} ms:\n${this.logTail()}`);
  }

  /** The last lines of the server's output. */
  logTail(lines = 20): string {
    try {
      return readFileSync(this.logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
    } catch {
      return '(no output)';
    }
  }

  /** Resident set size in bytes (Linux /proc); NaN where unavailable. */
  rss(): number {
    try {
      const status = readFileSync(`/proc/${this.pid}/status`, 'utf8');
      const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
      return match?.[1] ? Number(match[1]) * 1024 : Number.NaN;
    } catch {
      return Number.NaN;
    }
  }

  /**
   * CPU time (user + system) the process and its live descendants (CDS_WORKERS' workers) have
   * used, in seconds (Linux /proc); NaN where unavailable. A worker that exited takes its share.
   */
  cpuSeconds(): number {
    const seconds = processTree(this.pid).map(processCpuSeconds);
    return seconds.length === 0 ? Number.NaN : seconds.reduce((sum, s) => sum + s, 0);
  }

  /** SIGTERM, then SIGKILL if it has not exited within the grace; resolves with the exit code. */
  async stop(): Promise<number | null> {
    if (this.exitCode === null) {
      this.child.kill('SIGTERM');
      const timedOut = await Promise.race([this.exited.then(() => false), sleep(STOP_GRACE_MS).then(() => true)]);
      if (timedOut) {
        this.child.kill('SIGKILL');
        await this.exited;
      }
    }
    return this.exitCode;
  }
}

/** `pid` and its descendants, from each thread's `children` list (Linux /proc); [] if it is gone. */
function processTree(pid: number): number[] {
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  const children = threads.flatMap((tid) => {
    try {
      return readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
    } catch {
      return [];
    }
  });
  return [pid, ...children.flatMap(processTree)];
}

/** CPU seconds (user + system) of one process; 0 once it has exited. */
function processCpuSeconds(pid: number): number {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return 0;
  }
}
