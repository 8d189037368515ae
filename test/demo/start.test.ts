// `npm start` (`node src/app/server.ts`) on an empty database (contract: operator side; README "Quick start"): it
// migrates, seeds the demo and prints the API Client and API User credentials — each secret exactly
// once — and the address to log in at. A newcomer walks the whole flow from that output alone: the
// printed address shows the login form, the printed email and secret log in, the browser lands on
// /demo/callback with a code, the printed command (secret filled in) exchanges it, and the ID token
// calls the API. A second start on the same database prints no credentials.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { freshDatabase } from '../support/database.ts';
import { startInstance, type Instance } from '../support/processes.ts';
import { openLoginForm, submitLoginForm, type TokenBody } from '../support/login.ts';

/** Waits until the instance has written `pattern` to its output (it prints after it listens). */
async function outputMatching(instance: Instance, pattern: RegExp, timeoutMs = 10_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (!pattern.test(instance.output())) {
    if (Date.now() > deadline || !instance.alive()) assert.fail(`no ${pattern} in the output:\n${instance.output()}`);
    await sleep(50);
  }
  return instance.output();
}

function printed(output: string, label: string): string {
  const value = new RegExp(`^ +${label}: +(\\S+)$`, 'm').exec(output)?.[1];
  assert.ok(value, `"${label}" is printed:\n${output}`);
  return value;
}

function occurrences(text: string, part: string): number {
  return text.split(part).length - 1;
}

// Two server starts, each allowed the suite's readiness bound (test/support/processes.ts), and a login.
test('npm start on an empty database prints working demo credentials once; a second start prints none', { timeout: 300_000 }, async () => {
  const database = await freshDatabase();
  let instance: Instance | undefined;
  try {
    instance = await startInstance({ env: { DATABASE_URL: database.url } });
    const output = await outputMatching(instance, /Bearer <REFRESH_TOKEN>/);
    const clientId = printed(output, 'API Client id');
    const clientSecret = printed(output, 'API Client secret');
    const email = printed(output, 'API User email');
    const userSecret = printed(output, 'API User secret');
    assert.match(clientId, /^cli_/);
    // Framed after the log lines, with the reference page and the console.
    assert.match(output, /^═+\nDemo organisation created\./m);
    assert.match(output, new RegExp(`^Reference page: ${instance.url}/docs +Console: ${instance.url}/console\\n═+\\n`, 'm'));
    // …and the reference page once more with the demo client's id filled in, to log in from there.
    assert.match(output, new RegExp(`^ +${instance.url}/docs\\?client_id=${clientId}$`, 'm'));
    assert.match(email, /@demo\.example$/);
    assert.equal(occurrences(output, clientSecret), 1, 'the client secret is printed exactly once');
    assert.equal(occurrences(output, userSecret), 1, 'the user secret is printed exactly once');

    // The printed login address: the demo client, the service's own callback page.
    const authorize = new URL(/^ +(http\S+\/oauth\/authorize\?\S+)$/m.exec(output)?.[1] ?? assert.fail(`no authorize URL:\n${output}`));
    assert.equal(authorize.origin, instance.url);
    assert.equal(authorize.searchParams.get('client_id'), clientId);
    assert.equal(authorize.searchParams.get('redirect_uri'), `${instance.url}/demo/callback`);

    const form = await openLoginForm(authorize.toString());
    assert.equal(form.response.status, 200);
    assert.match(form.response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(form.html, /<input\b[^>]*name="email"/);
    assert.match(form.html, /<input\b[^>]*name="secret"/);
    const loggedIn = await submitLoginForm(new URL(form.action || authorize.toString(), authorize), form, { email, secret: userSecret });
    assert.equal(loggedIn.status, 302, await loggedIn.text());
    const callback = new URL(loggedIn.headers.get('location') ?? '');
    assert.equal(`${callback.origin}${callback.pathname}`, `${instance.url}/demo/callback`);
    assert.equal(callback.searchParams.get('state'), 'demo-state');
    assert.equal(callback.searchParams.get('iss'), `${instance.url}/api/v1/iam`);
    const code = callback.searchParams.get('code') ?? '';
    assert.ok(code);
    const page = await fetch(callback);
    assert.equal(page.status, 200);
    assert.ok((await page.text()).includes(code), 'the callback page shows the code');

    // The printed exchange command names the secret's place; filled in, it works as printed.
    const curl = /curl -s (\S+) -H 'Content-Type: application\/json' \\\n +-d '(\{.*\})'$/m.exec(output);
    assert.ok(curl, `no exchange command:\n${output}`);
    const [, tokenUrl = '', template = ''] = curl;
    assert.equal(tokenUrl, `${instance.url}/api/v1/iam/oauth/token`);
    assert.ok(template.includes('"client_secret":"<CLIENT_SECRET>"'), template);
    const exchange = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: template.replace('<CODE>', code).replace('<CLIENT_SECRET>', clientSecret),
    });
    assert.equal(exchange.status, 200);
    const tokens = (await exchange.json()) as TokenBody;
    const configuration = await fetch(`${instance.url}/api/v1/company/configuration`, { headers: { authorization: `Bearer ${tokens.id_token}` } });
    assert.equal(configuration.status, 200);
    const body = (await configuration.json()) as { company: { name: string }; departments: unknown[] };
    assert.ok(body.company.name, 'the demo company');
    assert.ok(body.departments.length > 0, 'with its data');
    // And the console invitation for the demo organisation's first admin.
    const invitation = printed(output, 'Console invitation');
    assert.match(invitation, new RegExp(`^${instance.url}/console/invitations/[A-Za-z0-9_-]{43}$`));
    const accept = await fetch(invitation);
    assert.equal(accept.status, 200);
    assert.match(await accept.text(), /<label for="password">Password<\/label>/);
    assert.equal(await instance.stop(), 0);

    instance = await startInstance({ env: { DATABASE_URL: database.url } });
    const again = await outputMatching(instance, /Listening on /);
    assert.doesNotMatch(again, /API Client secret|API User secret|Console invitation/);
    assert.ok(!again.includes(clientSecret) && !again.includes(userSecret), 'no secret is printed again');
    assert.match(again, /Demo data already present/);
  } finally {
    await instance?.stop();
    await database.drop();
  }
});
