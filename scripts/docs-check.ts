/**
 * `npm run docs:check`: builds the app in memory (SQLite in a temporary directory), reads its
 * OpenAPI document, and fails listing every route without a request schema where it takes input
 * or without response schemas. `npm test` runs the same check (test/http/docs-check.test.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { type OpenApiDocument, openApiProblems } from '../src/http/openapi-check.js';

const dataDir = mkdtempSync(join(tmpdir(), 'cds-docs-check-'));
try {
  const config = loadConfig({
    CDS_DATA_DIR: dataDir,
    CDS_JWT_SECRET: randomBytes(32).toString('hex'),
    CDS_LOG_LEVEL: 'silent',
    CDS_LEADERBOARD_RESET_CHECK_MS: '0',
  });
  const app = await buildApp(config);
  const document = app.http.swagger() as OpenApiDocument;
  await app.close();
  const problems = openApiProblems(document);
  const operations = Object.values(document.paths ?? {}).reduce((n, item) => n + Object.keys(item).length, 0);
  if (problems.length > 0) {
    process.stderr.write(`${problems.length} problem(s) in the OpenAPI document:\n`);
    for (const { operation, problem } of problems) process.stderr.write(`  ${operation}: ${problem}\n`);
    process.exitCode = 1;
  } else {
    process.stdout.write(`OpenAPI document: ${operations} operations, each with request and response schemas.\n`);
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
