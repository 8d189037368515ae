// `wfs` as an integrator installs it: the packed @wfs/cli tarball in a project outside this
// repository, run through npx on the machine's own Node.js against a real server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { startCompanyServer } from '../support/company.ts';
import { SYSTEM_NODE, installPacked, packagingSkip, run } from '../support/packages.ts';
import { writeCredentials } from '../../packages/client/src/file-store.ts';

test('the packed CLI runs with npx from its tarball: wfs --help, then wfs api with a stored login', { skip: packagingSkip() }, async () => {
  const { server, tenant, refreshToken } = await startCompanyServer();
  const project = await installPacked(['packages/cli']);
  try {
    // The machine's Node first on PATH: the bin's `#!/usr/bin/env node` runs on it.
    const env = { ...process.env, PATH: `${dirname(SYSTEM_NODE)}:${process.env.PATH ?? ''}` };
    const npx = (args: string[]) => run('npx', ['--no-install', 'wfs', ...args], { cwd: project.dir, env });

    const help = await npx(['--help']);
    assert.match(help.stdout, /\blogin\b/);
    assert.match(help.stdout, /\bapi\b/);
    assert.doesNotMatch(help.stdout, /create-organisation/, 'operator commands stay with the service');

    const credentialsFile = join(project.dir, 'credentials.json');
    writeCredentials(credentialsFile, { baseUrl: server.baseUrl, clientId: tenant.clientId, refreshToken });
    const configuration = await npx(['api', 'GET', '/api/v1/company/configuration', '--credentials-file', credentialsFile, '--json']);
    assert.equal((JSON.parse(configuration.stdout) as { company: { id: string } }).company.id, tenant.companyId);

    const refused = await npx(['api', 'GET', '/api/v1/company/users', '-q', 'form=2026-01-01', '--credentials-file', credentialsFile, '--json']).catch((error: { code: number; stdout: string }) => error);
    assert.equal('code' in refused ? refused.code : 0, 1);
    assert.match(refused.stdout, /"error":"400 validation_failed/);
  } finally {
    project.remove();
    await server.close();
  }
});
