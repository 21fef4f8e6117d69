/**
 * Webhooks' pure parts (§16): the checks of a registration, matching an event type against a
 * webhook's patterns, secrets, and the Standard Webhooks signature against vectors computed here.
 */
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../src/core/errors.js';
import {
  checkWebhook,
  isWebhookEvent,
  WEBHOOK_EVENT_TYPES,
  webhookMatches,
} from '../../src/core/webhooks/webhook-events.js';
import { isWebhookSecret, newWebhookSecret, signWebhook, webhookKey } from '../../src/core/webhooks/webhook-signing.js';

/** The issues of a registration checkWebhook refuses. */
function issuesOf(input: Parameters<typeof checkWebhook>[0]) {
  try {
    checkWebhook(input);
  } catch (error) {
    if (error instanceof AppError && error.code === 'validation') return error.issues;
    throw error;
  }
  throw new Error('accepted');
}

describe('webhook registrations (§16)', () => {
  it('accepts absolute http: and https: URLs with event types and <prefix>.* patterns', () => {
    const events = [...WEBHOOK_EVENT_TYPES, 'leaderboards.*', 'document.*', 'realtime.*', 'user.*'];
    for (const url of ['https://hooks.example.com/cds', 'http://127.0.0.1:9000/x?y=1']) {
      expect(checkWebhook({ url, events })).toEqual({ url, events, description: null });
    }
    expect(checkWebhook({ url: 'https://a.example', events: ['user.created'], description: 'd' }).description).toBe(
      'd',
    );
  });

  it('refuses other URLs and unknown events with §0 issues under body', () => {
    for (const url of ['/relative', 'example.com/x', 'ftp://example.com', 'javascript:alert(1)', 'file:///etc/x', '']) {
      expect(issuesOf({ url, events: ['user.created'] }), url).toEqual([
        { loc: ['body', 'url'], msg: 'must be an absolute http: or https: URL', type: 'value_error' },
      ]);
    }
    expect(issuesOf({ url: 'https://a.example', events: [] })?.[0]?.loc).toEqual(['body', 'events']);
    const bad = ['document', 'document.deleted', '*', 'foo.*', 'leaderboards.**', 'Document.written', '.*', ''];
    for (const event of bad) expect(isWebhookEvent(event), event).toBe(false);
    const issues = issuesOf({ url: 'https://a.example', events: ['document.written', 'foo.*', 'user.*', 'x'] });
    expect(issues?.map((issue) => issue.loc)).toEqual([
      ['body', 'events', 1],
      ['body', 'events', 3],
    ]);
    expect(issuesOf({ url: 'https://a.example', events: ['user.*'], description: 'x'.repeat(501) })?.[0]?.loc).toEqual([
      'body',
      'description',
    ]);
  });

  it('matches an event type exactly or by a <prefix>.* pattern', () => {
    expect(webhookMatches(['document.written'], 'document.written')).toBe(true);
    expect(webhookMatches(['document.written'], 'realtime.written')).toBe(false);
    expect(webhookMatches(['leaderboards.*'], 'leaderboards.stat')).toBe(true);
    expect(webhookMatches(['leaderboards.*'], 'leaderboards.reset')).toBe(true);
    expect(webhookMatches(['leaderboards.*'], 'leaderboards')).toBe(false);
    expect(webhookMatches(['leaderboards.*'], 'leaderboardsx.stat')).toBe(false);
    expect(webhookMatches(['user.*', 'document.written'], 'user.created')).toBe(true);
    expect(webhookMatches(['document.*'], 'user.created')).toBe(false);
    expect(webhookMatches([], 'user.created')).toBe(false);
  });
});

describe('webhook secrets and signatures (Standard Webhooks 1.0)', () => {
  it('makes whsec_ + base64 of 32 random bytes, never twice the same', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(webhookKey(secret)).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
    expect(isWebhookSecret(secret)).toBe(true);
    for (const bad of ['sk_abc', 'whsec_', 'whsec_!!!!', `whsec_${Buffer.alloc(8).toString('base64')}`]) {
      expect(isWebhookSecret(bad), bad).toBe(false);
    }
  });

  it('signs v1,<base64 HMAC-SHA256 with the decoded key over id.timestamp.body>', () => {
    const key = Buffer.from(Array.from({ length: 32 }, (_, i) => i));
    const secret = `whsec_${key.toString('base64')}`;
    const id = '0190d1c5-7a2b-7cc0-9a51-2f1f4a0c9e11';
    const body = '{"type":"user.created","data":{"user_id":1,"username":"ann"}}';
    const expected = createHmac('sha256', key).update(`${id}.1700000000.${body}`).digest('base64');
    expect(signWebhook(secret, id, 1_700_000_000, body)).toBe(`v1,${expected}`);
    // The key is the decoded secret, not its text; and each part of the signed content counts.
    const overText = createHmac('sha256', secret).update(`${id}.1700000000.${body}`).digest('base64');
    expect(signWebhook(secret, id, 1_700_000_000, body)).not.toBe(`v1,${overText}`);
    expect(signWebhook(secret, id, 1_700_000_001, body)).not.toBe(`v1,${expected}`);
    expect(() => signWebhook('not-a-secret', id, 1, body)).toThrow();
  });

  it('agrees with the published Standard Webhooks test vector', () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect(signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330, '{"test": 2432232314}')).toBe(
      'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    );
  });
});
