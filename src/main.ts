/**
 * Entry point: the only reader of process.env (with src/cli/main.ts). CDS_WORKERS=1 serves in
 * this process; more makes this process the cluster primary (`primary.ts`), which forks that
 * many workers, each serving the same port (`serve.ts`).
 */
import cluster from 'node:cluster';
import { loadConfig } from './config.js';
import { runPrimary } from './primary.js';
import { serve } from './serve.js';

async function main(): Promise<void> {
  const config = loadConfig(process.env);
  if (cluster.isWorker) return serve(config, 'worker');
  if (config.workers > 1) return runPrimary(config);
  return serve(config, 'alone');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
