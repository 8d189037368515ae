// The client as an integrator gets it: `npm pack`, installed from the tarball into a project of
// their own outside this repository, run by the machine's own Node.js (not the project's Node 24) and
// type-checked by tsc against the published declarations — against a real server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCompanyServer } from '../support/company.ts';
import { REPOSITORY, SYSTEM_NODE, installPacked, packagingSkip, run } from '../support/packages.ts';

const TSC = join(REPOSITORY, 'node_modules', 'typescript', 'bin', 'tsc');

const INTEGRATION = `
import { WfsClient, ApiError } from '@wfs/client';
import { clientFromCredentials, writeCredentials, readCredentials } from '@wfs/client/file-store';

const [baseUrl, refreshToken, file] = process.argv.slice(2);
writeCredentials(file, { baseUrl, clientId: 'scratch', refreshToken });
const client = clientFromCredentials(file);
const configuration = await client.configuration();
const till = configuration.departments.find((department) => department.code === 'TIL');
const batch = await client.createRevenue([{ departmentId: till.id, date: '2026-11-20', kind: 'realised', amount: 1520.75 }]);
const [badge] = await client.list('/api/v1/timeclock/badges');
const punch = await client.timeclock.send({ badgeId: badge.badgeId, type: 'clock_in', occurredAt: new Date().toISOString(), source: 'terminal' });
let refused;
try {
  await client.request('GET', '/api/v1/company/users', { query: { form: '2026-01-01' } });
} catch (error) {
  refused = error instanceof ApiError ? error.code : String(error);
}
console.log(JSON.stringify({ node: process.version, company: configuration.company.id, batch, punch: punch.sequence, refused, secretInFile: 'clientSecret' in readCredentials(file) }));
`;

const TYPED = `
import { WfsClient, ApiError, type ItemOf, type RevenueItem } from '@wfs/client';
import { clientFromCredentials } from '@wfs/client/file-store';

const client: WfsClient = clientFromCredentials('credentials.json');
const item: RevenueItem = { departmentId: 'd', date: '2026-11-20', kind: 'realised', amount: 1 };
const badges: ItemOf<'/api/v1/timeclock/badges'>[] = await client.list('/api/v1/timeclock/badges');
const configuration = await client.configuration();
const zone: string = configuration.company.timezone;
// @ts-expect-error kind is 'realised' | 'prognosis'
const wrong: RevenueItem = { departmentId: 'd', date: '2026-11-20', kind: 'forecast', amount: 1 };
export { item, badges, zone, wrong, ApiError };
`;

test('the packed client installs from its tarball outside the repository, runs on the machine\'s Node and type-checks', { skip: packagingSkip() }, async () => {
  const { server, tenant, refreshToken } = await startCompanyServer({
    data: {
      departments: [{ ref: 'till', name: 'Till', code: 'TIL' }],
      users: [{ ref: 'u1', employeeNumber: 'E1', firstName: 'Ada', lastName: 'Punch', email: null, employmentStart: '2020-01-01', employmentEnd: null, badgeId: 'B1', timeclockActive: true }],
    },
  });
  const project = await installPacked(['packages/client']);
  const scratch = project.dir;
  try {

    writeFileSync(join(scratch, 'integration.mjs'), INTEGRATION);
    const { stdout } = await run(SYSTEM_NODE, ['integration.mjs', server.baseUrl, refreshToken, join(scratch, 'credentials.json')], { cwd: scratch });
    const result = JSON.parse(stdout) as { node: string; company: string; batch: { created: number }; punch: number; refused: string; secretInFile: boolean };
    assert.equal(result.company, tenant.companyId);
    assert.equal(result.batch.created, 1);
    assert.equal(result.punch, 1);
    assert.equal(result.refused, 'validation_failed', 'a refused call surfaces as ApiError with its code');
    assert.equal(result.secretInFile, false);
    if (SYSTEM_NODE === '/usr/bin/node') assert.notEqual(result.node.split('.')[0], process.version.split('.')[0], 'ran on another Node than the project\'s');

    writeFileSync(join(scratch, 'integration.ts'), TYPED);
    writeFileSync(join(scratch, 'tsconfig.json'), JSON.stringify({
      compilerOptions: { target: 'es2022', module: 'nodenext', moduleResolution: 'nodenext', strict: true, noEmit: true, lib: ['es2022', 'dom'], types: [] },
      files: ['integration.ts'],
    }));
    await run(process.execPath, [TSC, '-p', scratch], { cwd: scratch }).catch((error: { stdout: string }) => assert.fail(`tsc: ${error.stdout}`));
  } finally {
    await server.close();
    project.remove();
  }
});
