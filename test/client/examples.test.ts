import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startCompanyServer, type CompanyServer } from '../support/company.ts';
import { writeCredentials } from '../../packages/client/src/file-store.ts';

// The examples run as an integrator runs them: their own process, the credentials file `wfs login` writes.
const run = promisify(execFile);
const EXAMPLES = join(import.meta.dirname, '..', '..', 'examples');

let shop: CompanyServer;
let dir: string;
let credentialsFile: string;
before(async () => {
  shop = await startCompanyServer({
    name: 'Corner Shop',
    data: {
      departments: [{ ref: 'bar', name: 'Bar', code: 'BAR' }, { ref: 'kitchen', name: 'Kitchen', code: 'KIT' }],
      users: ['Ann', 'Ben', 'Cas'].map((name, i) => ({
        ref: name, employeeNumber: `E${i}`, firstName: name, lastName: 'Example', email: null,
        employmentStart: '2020-01-01', employmentEnd: null, badgeId: `BADGE-${i}`, timeclockActive: true,
      })),
    },
  });
  dir = mkdtempSync(join(tmpdir(), 'wfs-examples-'));
  credentialsFile = join(dir, 'credentials.json');
  const { server, tenant, refreshToken } = shop;
  writeCredentials(credentialsFile, { baseUrl: server.baseUrl, clientId: tenant.clientId, refreshToken });
});
after(async () => {
  await shop?.server.close();
  rmSync(dir, { recursive: true, force: true });
});

test('examples/pos-revenue.ts pushes realised days and a weekly prognosis; a rerun changes nothing', async () => {
  const args = [join(EXAMPLES, 'pos-revenue.ts'), '--days', '3', '--credentials-file', credentialsFile];
  const first = await run(process.execPath, args);
  // 2 departments × (3 days + 1 prognosis week)
  assert.match(first.stdout, /Corner Shop: 8 revenue items for 2 departments/);
  assert.match(first.stdout, /received 8: 8 created, 0 updated, 0 unchanged/);
  const second = await run(process.execPath, args);
  assert.match(second.stdout, /received 8: 0 created, 0 updated, 8 unchanged/);
  assert.equal((JSON.parse(readFileSync(credentialsFile, 'utf8')) as { baseUrl: string }).baseUrl, shop.server.baseUrl);
});

test('examples/timeclock-terminal.ts punches people in order and every punch is stored', async () => {
  const { stdout, stderr } = await run(process.execPath, [join(EXAMPLES, 'timeclock-terminal.ts'), '--people', '3', '--seconds', '2', '--credentials-file', credentialsFile]);
  assert.equal(stderr, '');
  const done = /Done: (\d+) punches stored \((\d+) with an anomaly\), 0 refused\./.exec(stdout);
  assert.ok(done, stdout);
  const stored = Number(done[1]);
  assert.ok(stored >= 6, `${stored} punches`);
  assert.equal(done[2], '0', 'each person follows clock_in → break_start → break_end → clock_out');
  const events = await shop.server.ctx.db.selectFrom('timeclock_events').select(['id']).where('company_id', '=', shop.tenant.companyId).execute();
  assert.equal(events.length, stored);
});
