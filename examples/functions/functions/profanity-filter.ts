/**
 * A profanity filter: every player's write of a document under `chat/` (messages in `chat`, and
 * in collections below it such as `chat/lobby/messages`) has the listed words of its `text`
 * replaced by asterisks before it is stored. Other collections, deletes, and the server's own
 * writes (`ctx.admin`, the admin API) pass as they are.
 */
import { defineFunctions } from 'client-data-service/functions';

/** Whole words only, any case: "hello" and "Scunthorpe" stay as they are. */
export const BANNED = /\b(darn|heck|frick)\b/gi;

export default defineFunctions({
  projects: '*',
  before: {
    'documents.write': (_ctx, write) => {
      if (!write.path.startsWith('chat/') || write.data === null) return undefined; // as asked
      const text = write.data.text;
      if (typeof text !== 'string') return undefined;
      const clean = text.replace(BANNED, (word) => '*'.repeat(word.length));
      return clean === text ? undefined : { ...write.data, text: clean };
    },
  },
});
