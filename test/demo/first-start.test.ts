// `npm start` seeds the demo on an empty database exactly once, also when instances start together.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeContext, createContext } from '../../src/app/bootstrap.ts';
import { loadConfig } from '../../src/platform/config.ts';
import { seedDemoOnFirstStart } from '../../src/demo/seed.ts';
import { freshDatabase } from '../support/database.ts';

test('three instances starting at once on an empty database seed one demo organisation', async () => {
  const database = await freshDatabase();
  const config = loadConfig({ DATABASE_URL: database.url });
  const ctx = await createContext(config, { poll: false });
  try {
    const seeded = await Promise.all([1, 2, 3].map(() => seedDemoOnFirstStart(ctx.db, config)));
    assert.equal(seeded.filter(Boolean).length, 1);
    const organisations = await ctx.db.selectFrom('organisations').select('id').execute();
    assert.equal(organisations.length, 1);
    assert.equal(await seedDemoOnFirstStart(ctx.db, config), undefined, 'a later start seeds nothing');
  } finally {
    await closeContext(ctx);
    await database.drop();
  }
});
