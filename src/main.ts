/**
 * Entry point: the only reader of process.env (with src/cli/main.ts). CDS_WORKERS=1 serves in
 * this process; more makes this process the cluster primary (`primary.ts`), which forks that
 * many workers, each serving the same port (`serve.ts`).
 */
import cluster from 'node:cluster';
import { loadConfig } from './config.js';

// Each role loads only its own modules: the primary serves nothing and starts sooner without the HTTP app.
async function main(): Promise<void> {
  const config = loadConfig(process.env);
  if (cluster.isWorker) return (await import('./serve.js')).serve(config, 'worker');
  if (config.workers > 1) return (await import('./primary.js')).runPrimary(config);
  return (await import('./serve.js')).serve(config, 'alone');
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
