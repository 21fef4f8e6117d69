/** Event ids (§16): version 7 UUIDs of the commit's time, unique. */
import { describe, expect, it } from 'vitest';
import { eventId, newEvent } from '../../src/core/events/outbox-events.js';

const V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('event ids', () => {
  it('are version 7 UUIDs carrying the time in milliseconds, and never repeat', () => {
    const time = Date.UTC(2026, 10, 27, 12, 0, 0, 123);
    const ids = Array.from({ length: 10_000 }, () => eventId(time));
    for (const id of ids.slice(0, 100)) expect(id).toMatch(V7);
    expect(Number.parseInt(ids[0]?.replace('-', '').slice(0, 12) ?? '', 16)).toBe(time);
    expect(new Set(ids).size).toBe(ids.length);
    expect(eventId(0)).toMatch(/^00000000-0000-7/);
  });

  it('an event carries its id, type, project, ISO time and data in its JSON', () => {
    const time = Date.UTC(2026, 0, 2, 3, 4, 5, 6);
    const event = newEvent(7, 'user.created', time, { user_id: 1 });
    expect(JSON.parse(event.json)).toEqual({
      id: event.id,
      type: 'user.created',
      project_id: 7,
      timestamp: '2026-01-02T03:04:05.006Z',
      data: { user_id: 1 },
    });
    expect(JSON.parse(newEvent(7, 'user.created', time + 1, null).json).timestamp).toBe('2026-01-02T03:04:05.007Z');
  });
});
