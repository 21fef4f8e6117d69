import { describe, expect, it } from 'vitest';
import { documentJsonPath } from '../../src/core/documents/document-service.js';
import type { DocumentJson } from '../../src/core/documents/document-store.js';

describe('documentJsonPath', () => {
  it.each(['a/b', 'a/"q"/c/\\\\', 'u/\u2028/x/😀', 'a/,"path":"x/y'])('reads %j without parsing the data', (path) => {
    const json = JSON.stringify({ id: 'i,"path":"no', path, data: { path: 'not this' } }) as DocumentJson;
    expect(documentJsonPath(json)).toBe(path);
  });
});
