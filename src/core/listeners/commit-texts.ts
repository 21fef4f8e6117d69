/**
 * What every listener of a commit shares (§10), worked out once per commit however many
 * listeners it reaches: each changed document as a record, whether a change altered the data at
 * all, and each document's JSON text in a `changes` message. A commit's change entries are the
 * keys: the feed hands the same objects to every listener.
 */
import type { DocumentChangeEntry, DocumentRecord } from '../documents/document-store.js';
import type { JsonObject } from '../json.js';

const records = new WeakMap<DocumentChangeEntry, DocumentRecord>();
const alterations = new WeakMap<DocumentChangeEntry, boolean>();
const texts = new WeakMap<object, string>();

/** The document a change leaves (null for a delete), one object for every listener. */
export function changedRecord(change: DocumentChangeEntry): DocumentRecord | null {
  if (change.data === null) return null;
  let record = records.get(change);
  if (!record) {
    record = { id: change.id, path: change.path, data: change.data };
    records.set(change, record);
  }
  return record;
}

/** Data compared as its JSON text (a write that stores what was there still commits, §10). */
export const sameData = (a: JsonObject, b: JsonObject): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Whether the change made the document's data differ from what it was before the commit. */
export function altersData(change: DocumentChangeEntry): boolean {
  let altered = alterations.get(change);
  if (altered === undefined) {
    altered = change.data === null || change.previous === null || !sameData(change.previous, change.data);
    alterations.set(change, altered);
  }
  return altered;
}

/** The JSON text of a document (or a removed one's `{id, path}`), made once per object. */
export function documentText(document: DocumentRecord | { id: string; path: string }): string {
  let text = texts.get(document);
  if (text === undefined) {
    text = JSON.stringify(document);
    texts.set(document, text);
  }
  return text;
}
