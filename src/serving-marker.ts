/**
 * Marks a data directory as served by a running process (`cds.pid`), so `cds restore` refuses to
 * replace a database under a running service (§14). A marker left by a killed process is stale:
 * its pid no longer runs.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const markerOf = (dataDir: string) => join(dataDir, 'cds.pid');

/** Writes this process's marker; returns a function that removes it. */
export function markServing(dataDir: string): () => void {
  const marker = markerOf(dataDir);
  writeFileSync(marker, String(process.pid));
  return () => {
    if (servingPid(dataDir) === process.pid) rmSync(marker, { force: true });
  };
}

/** The pid of a live process serving `dataDir`, or null. */
export function servingPid(dataDir: string): number | null {
  let pid: number;
  try {
    pid = Number(readFileSync(markerOf(dataDir), 'utf8').trim());
  } catch {
    return null;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}
