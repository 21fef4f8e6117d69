import { describe, expect, it } from 'vitest';
import { decodeCommits, encodeCommit, encodeCommits, updateFor } from '../../../src/core/realtime/commit-event.js';
import {
  ackMessage,
  errorMessage,
  initMessage,
  parseClientMessage,
  resumeMessage,
  updateMessage,
} from '../../../src/core/realtime/messages.js';

describe('client messages', () => {
  it('parses every action, normalizing paths and keeping the id', () => {
    expect(parseClientMessage('{"action":"subscribe","path":"/a//b/","id":7}')).toEqual({
      ok: true,
      message: { action: 'subscribe', path: 'a/b', id: 7 },
    });
    expect(parseClientMessage('{"action":"subscribe","path":"a","since":12}')).toEqual({
      ok: true,
      message: { action: 'subscribe', path: 'a', since: 12 },
    });
    expect(parseClientMessage('{"action":"set","path":"a","value":null,"id":"x"}')).toEqual({
      ok: true,
      message: { action: 'set', path: 'a', value: null, id: 'x' },
    });
    expect(parseClientMessage('{"action":"patch","path":"","value":{"a/b":1}}')).toEqual({
      ok: true,
      message: { action: 'patch', path: '', value: { 'a/b': 1 } },
    });
    expect(parseClientMessage('{"action":"delete","path":"a"}').ok).toBe(true);
    expect(parseClientMessage('{"action":"unsubscribe","path":"a"}').ok).toBe(true);
  });

  it('refuses what is wrong, echoing the id when it could be read', () => {
    const cases: [string, string, (string | number)?][] = [
      ['not json', 'Invalid JSON'],
      ['[1]', 'A message must be a JSON object'],
      ['{"action":"fly","path":"a","id":1}', "Unknown action 'fly'", 1],
      ['{"path":"a"}', 'action is required'],
      ['{"action":"subscribe","id":"q"}', 'path is required', 'q'],
      ['{"action":"subscribe","path":5}', 'path must be a string'],
      ['{"action":"subscribe","path":"a/../b"}', 'Invalid path segment'],
      ['{"action":"set","path":"a"}', 'value is required'],
      ['{"action":"patch","path":"a","value":[1]}', 'value must be an object'],
      ['{"action":"subscribe","path":"a","since":1.5}', 'since must be an integer'],
      ['{"action":"set","path":"a","value":1,"id":{}}', 'id must be a string or a number'],
    ];
    for (const [text, error, id] of cases) {
      expect(parseClientMessage(text)).toEqual(id === undefined ? { ok: false, error } : { ok: false, error, id });
    }
  });
});

describe('server messages and updates', () => {
  it('builds the §4 events, with id only when given', () => {
    expect(JSON.parse(initMessage('a', { b: 1 }, 3, 'i'))).toEqual({
      event: 'init',
      path: 'a',
      value: { b: 1 },
      version: 3,
      id: 'i',
    });
    expect(JSON.parse(initMessage('a', null, 0))).toEqual({ event: 'init', path: 'a', value: null, version: 0 });
    expect(JSON.parse(resumeMessage('a', 9))).toEqual({ event: 'resume', path: 'a', version: 9 });
    expect(JSON.parse(updateMessage('a/b', 2, 4))).toEqual({ event: 'update', path: 'a/b', value: 2, version: 4 });
    expect(JSON.parse(ackMessage('set', 'a', 5))).toEqual({ event: 'ack', action: 'set', path: 'a', id: 5 });
    expect(JSON.parse(errorMessage('nope'))).toEqual({ event: 'error', message: 'nope' });
  });

  it('turns a change into the update of a subscription: at or below, above, or beside', () => {
    expect(updateFor('a', { path: 'a/b', value: 1 })).toEqual({ path: 'a/b', value: 1 });
    expect(updateFor('a/b', { path: 'a/b', value: 1 })).toEqual({ path: 'a/b', value: 1 });
    expect(updateFor('a/b/c', { path: 'a', value: { b: { c: { d: 1 } } } })).toEqual({
      path: 'a/b/c',
      value: { d: 1 },
    });
    expect(updateFor('a/b', { path: 'a', value: 5 })).toEqual({ path: 'a/b', value: null });
    expect(updateFor('a/b', { path: 'a/c', value: 1 })).toBeNull();
    expect(updateFor('x', { path: '', value: null })).toEqual({ path: 'x', value: null });
  });

  it('round-trips commit events and refuses foreign messages', () => {
    const event = { projectId: 3, version: 8, changes: [{ path: 'a', value: { b: [1] } }] };
    expect(decodeCommits(encodeCommit(event))).toEqual([event]);
    // A batch's commits travel as one message, in version order.
    const next = { version: 9, changes: [{ path: 'c', value: null }] };
    expect(decodeCommits(encodeCommits(3, [event, next]))).toEqual([event, { projectId: 3, ...next }]);
    // The single-commit form of earlier versions of the service is still understood.
    expect(decodeCommits(JSON.stringify(event))).toEqual([event]);
    expect(decodeCommits('nope')).toBeNull();
    expect(decodeCommits('{"projectId":"3","version":1,"changes":[]}')).toBeNull();
    expect(decodeCommits('{"projectId":3,"version":1,"changes":[{"path":"a"}]}')).toBeNull();
    expect(
      decodeCommits('{"projectId":3,"commits":[{"version":1,"changes":[]},{"version":"2","changes":[]}]}'),
    ).toBeNull();
  });
});
