// Bearer authentication on one keep-alive connection (src/iam/bearer-authentication.ts remembers the
// last token each connection sent): a proxy in front of the service carries many clients' requests
// over one connection, so each request must still be its own token's company, and a revoked or
// expired token on a connection that used it before must be refused like on any other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request as httpRequest } from 'node:http';
import { useTestServer } from '../support/server.ts';
import { mintTokens, provisionTenant, type Tenant } from '../support/tenants.ts';

const server = useTestServer({});

interface Answer {
  status: number;
  companyId: string | undefined;
  /** Whether the request went over a connection an earlier request used. */
  reusedSocket: boolean;
}

/** GET /configuration over `agent` (one connection, kept alive). */
function configuration(agent: Agent, idToken: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${server.baseUrl}/api/v1/company/configuration`, { agent, headers: { authorization: `Bearer ${idToken}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => {
        const body = JSON.parse(text) as { company?: { id: string } };
        resolve({ status: res.statusCode ?? 0, companyId: body.company?.id, reusedSocket: req.reusedSocket });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

function revoke(tenant: Tenant, token: string): Promise<Response> {
  return server.fetch(`${server.config.issuer}/oauth/revoke`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ token, client_id: tenant.clientId, client_secret: tenant.clientSecret }),
  });
}

test('tokens of two companies alternating on one connection each get their own company', async () => {
  const first = await provisionTenant(server.ctx);
  const second = await provisionTenant(server.ctx);
  const tokens = [(await mintTokens(server.ctx, first)).id_token, (await mintTokens(server.ctx, second)).id_token];
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (let i = 0; i < 6; i++) {
      const answer = await configuration(agent, tokens[i % 2]!);
      assert.equal(answer.status, 200);
      assert.equal(answer.companyId, (i % 2 === 0 ? first : second).companyId, `request ${i}`);
      if (i > 0) assert.ok(answer.reusedSocket, `request ${i} went over the same connection`);
    }
  } finally {
    agent.destroy();
  }
});

test('a token revoked after it was used on a connection is refused on that connection within 5 seconds', async () => {
  const tenant = await provisionTenant(server.ctx);
  const idToken = (await mintTokens(server.ctx, tenant)).id_token;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    assert.equal((await configuration(agent, idToken)).status, 200);
    assert.equal((await configuration(agent, idToken)).status, 200);
    assert.equal((await revoke(tenant, idToken)).status, 200);
    const deadline = Date.now() + 5000;
    let answer = await configuration(agent, idToken);
    while (answer.status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      answer = await configuration(agent, idToken);
    }
    assert.equal(answer.status, 401);
    assert.ok(answer.reusedSocket, 'the refusal came over the connection that used the token before');
  } finally {
    agent.destroy();
  }
});
