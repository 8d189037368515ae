// The baseline: a bare node:http server answering a small JSON document, run as its own process so
// it gets a core of its own, exactly like the service does. With BARE_BODY_FILE it also answers
// `/body` with that file's bytes (the feed's own body), from memory: what sending a body that size
// costs here when the server does no other work. Prints "listening <port>" when ready.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const small = Buffer.from(JSON.stringify({ company: { id: 'cmp_bench', name: 'Bench', timezone: 'Europe/Amsterdam', currency: 'EUR', locale: 'nl-NL' } }));
const large = process.env.BARE_BODY_FILE ? readFileSync(process.env.BARE_BODY_FILE) : undefined;

const server = createServer((request, response) => {
  const body = large && request.url === '/body' ? large : small;
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
  response.end(body);
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
