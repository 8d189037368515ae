// The token row's floor (issue 16): a bare node:http server doing the least a conforming
// `client_credentials` answer takes — read the form body, build the claims, sign them ES256 (the
// contract's algorithm) — and nothing else: no client check, no rate limit, no framework, nothing
// stored. The signatures of one event-loop turn go to one worker thread in one message, as the
// service's signing thread does, so the signing uses the second core. It shows what share of the
// machine the signature alone leaves for the rest. Listens on PORT; prints "listening <port>".
import { randomUUID, generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import { Worker } from 'node:worker_threads';

const SIGNER = `
const { parentPort, workerData } = require('node:worker_threads');
const { createPrivateKey, sign } = require('node:crypto');
const key = createPrivateKey(workerData);
parentPort.on('message', (inputs) => parentPort.postMessage(inputs.map((input) =>
  input + '.' + sign('sha256', Buffer.from(input), { key, dsaEncoding: 'ieee-p1363' }).toString('base64url'))));
`;

const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const signer = new Worker(SIGNER, { eval: true, workerData: privateKey.export({ type: 'pkcs8', format: 'pem' }) });
const header = Buffer.from(JSON.stringify({ alg: 'ES256', kid: 'floor', typ: 'JWT' })).toString('base64url');

type Answer = (token: string) => void;
let inputs: string[] = [];
let answers: Answer[] = [];
const inFlight: Answer[][] = [];
signer.on('message', (tokens: string[]) => {
  const batch = inFlight.shift() ?? [];
  tokens.forEach((token, i) => batch[i]?.(token));
});

function signLater(input: string, answer: Answer): void {
  if (inputs.length === 0) {
    setImmediate(() => {
      inFlight.push(answers);
      signer.postMessage(inputs);
      inputs = [];
      answers = [];
    });
  }
  inputs.push(input);
  answers.push(answer);
}

const base = `http://127.0.0.1:${process.env.PORT}`;
const server = createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk: string) => { body += chunk; });
  request.on('end', () => {
    const clientId = new URLSearchParams(body).get('client_id') ?? '';
    const now = Math.floor(Date.now() / 1000);
    const claims = {
      iss: base, sub: clientId, aud: ['service-api', clientId], azp: clientId, iat: now, exp: now + 3600, auth_time: now,
      jti: randomUUID(), sid: randomUUID(), scope: 'all', company_id: 'cmp_floor', org_id: 'org_floor',
    };
    signLater(`${header}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}`, (token) => {
      const answer = JSON.stringify({ access_token: token, id_token: token, token_type: 'Bearer', expires_in: 3600, scope: 'all' });
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(answer) });
      response.end(answer);
    });
  });
});

server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write(`listening ${process.env.PORT}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
