/**
 * `cds webhooks create | list | delete | deliveries | retry` (§16) and webhooks in `cds export` / `cds import` (§8)
 * on SQLite, the command's program run in this process (`cdsInProcess`; cli.test.ts runs it as a process).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cdsInProcess } from '../support/cli.js';

describe('cds webhooks and their export (SQLite)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cds-webhooks-cli-'));
  const cds = cdsInProcess(dataDir);
  const ok = async (...args: string[]) => {
    const result = await cds(...args);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    return JSON.parse(result.stdout);
  };
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates, lists and deletes webhooks; export leaves secrets out unless asked', { timeout: 60_000 }, async () => {
    const project = String((await ok('project', 'create', '--org', 'o', '--name', 'hooks', '--json')).project_id);
    const created = await ok(
      ...['webhooks', 'create', '--project', project, '--url', 'https://hooks.example/cds'],
      ...['--events', 'document.written,leaderboards.*', '--events', 'user.created', '--description', 'ops'],
    );
    expect(created).toEqual({
      id: expect.any(Number),
      url: 'https://hooks.example/cds',
      events: ['document.written', 'leaderboards.*', 'user.created'],
      description: 'ops',
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_/),
    });
    const bad = await cds('webhooks', 'create', '--project', project, '--url', 'ftp://x', '--events', 'user.*');
    expect([bad.code, bad.stderr]).toEqual([1, 'cds: url must be an absolute http: or https: URL\n']);
    const second = await ok(
      'webhooks',
      'create',
      '--project',
      project,
      '--url',
      'http://127.0.0.1:9/x',
      '--events',
      'realtime.*',
    );
    const withoutSecret = ({ secret: _shownOnce, ...webhook }: { secret: string }) => webhook;
    const list = await ok('webhooks', 'list', '--project', project, '--json');
    expect(list.webhooks).toEqual([withoutSecret(created), withoutSecret(second)]);
    const id = String(created.id);
    expect(await ok('webhooks', 'deliveries', '--project', project, '--id', id, '--status', 'failed')).toEqual({
      deliveries: [],
    });
    const noDelivery = await cds('webhooks', 'retry', '--project', project, '--id', id, '--event', crypto.randomUUID());
    expect([noDelivery.code, noDelivery.stderr]).toEqual([1, 'cds: Delivery not found\n']);

    const plain = await ok('export', '--project', project);
    expect(plain.webhooks).toEqual([
      { url: 'https://hooks.example/cds', events: created.events, description: 'ops' },
      { url: 'http://127.0.0.1:9/x', events: ['realtime.*'], description: null },
    ]);
    const withSecrets = await ok('export', '--project', project, '--with-secrets');
    expect(withSecrets.webhooks.map((w: { secret: string }) => w.secret)).toEqual([created.secret, second.secret]);

    // Into another project: a webhook with a secret keeps it, one without gets a fresh one, printed once.
    const target = String((await ok('project', 'create', '--org', 'o', '--name', 'copy', '--json')).project_id);
    const file = join(dataDir, 'export.json');
    writeFileSync(file, JSON.stringify({ ...plain, webhooks: [withSecrets.webhooks[0], plain.webhooks[1]] }));
    const imported = (await ok('import', '--project', target, file, '--json')).imported;
    expect(imported.webhooks).toBe(2);
    expect(imported.webhook_secrets).toEqual([
      { id: expect.any(Number), url: 'http://127.0.0.1:9/x', secret: expect.stringMatching(/^whsec_/) },
    ]);
    const copied = await ok('export', '--project', target, '--with-secrets');
    expect(copied.webhooks).toEqual([
      withSecrets.webhooks[0],
      { ...plain.webhooks[1], secret: imported.webhook_secrets[0].secret },
    ]);
    const text = await cds('import', '--project', target, file);
    expect(text.stdout).toContain('2 webhooks');
    expect(text.stdout).not.toContain('new secret');
    expect((await ok('webhooks', 'list', '--project', target)).webhooks).toHaveLength(2);

    expect(await ok('webhooks', 'delete', '--project', project, '--id', String(created.id))).toEqual({
      deleted: created.id,
    });
    const again = await cds('webhooks', 'delete', '--project', project, '--id', String(created.id));
    expect([again.code, again.stderr]).toEqual([1, 'cds: Webhook not found\n']);
    const missing = await cds('webhooks', 'list', '--project', '999');
    expect([missing.code, missing.stderr]).toEqual([1, 'cds: Project not found\n']);
  });
});
