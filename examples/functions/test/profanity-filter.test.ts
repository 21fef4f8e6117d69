/** The profanity filter (functions/profanity-filter.ts) against the service in memory, as an operator tests it. */
import { type FunctionsTestService, startFunctionsTestService } from 'client-data-service/functions/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import profanityFilter from '../functions/profanity-filter.js';

describe('profanity filter', () => {
  let service: FunctionsTestService;
  beforeAll(async () => {
    service = await startFunctionsTestService({ modules: [profanityFilter] });
  });
  afterAll(() => service.close());

  it('stars the listed words of a chat message, whole words in any case', async () => {
    const put = await service.documents.put('chat/m1', { text: 'Heck, what the DARN hello', from: 'player' });
    expect(put.data).toEqual({ text: '****, what the **** hello', from: 'player' });
    expect((await service.admin.documents.get('chat/m1'))?.data.text).toBe('****, what the **** hello');
  });

  it('filters patches and documents in collections under chat/', async () => {
    await service.documents.put('chat/lobby/messages/m1', { text: 'fine' });
    const patched = await service.documents.patch('chat/lobby/messages/m1', { text: 'oh frick' });
    expect(patched.data).toEqual({ text: 'oh *****' });
  });

  it('leaves other collections, deletes and the server’s own writes alone', async () => {
    expect((await service.documents.put('notes/n1', { text: 'heck' })).data).toEqual({ text: 'heck' });
    expect(await service.documents.delete('chat/m1')).toEqual({ deleted: 'chat/m1' });
    await service.admin.documents.put('chat/from-server', { data: { text: 'heck' } });
    expect((await service.admin.documents.get('chat/from-server'))?.data.text).toBe('heck');
  });
});
