// The baseline: a bare node:http server answering a small JSON document, run as its own process so
// it gets a core of its own, exactly like the service does. Prints "listening <port>" when ready.
import { createServer } from 'node:http';

const body = JSON.stringify({ company: { id: 'cmp_bench', name: 'Bench', timezone: 'Europe/Amsterdam', currency: 'EUR', locale: 'nl-NL' } });

const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
