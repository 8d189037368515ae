// Secrets every instance must agree on (such as the cursor HMAC key) are generated once and kept
// in the database; the first instance to ask creates it, a racing second one reads the winner's.
import type { Db } from './database.ts';
import { newSecret } from '../ids.ts';

export async function sharedSecret(db: Db, name: string): Promise<string> {
  await db
    .insertInto('app_secrets')
    .values({ name, value: newSecret(32), created_at: Date.now() })
    .onConflict((oc) => oc.column('name').doNothing())
    .execute();
  const row = await db.selectFrom('app_secrets').select('value').where('name', '=', name).executeTakeFirstOrThrow();
  return row.value;
}
