// A lean keep-alive JSON client over node:http for the scenarios wrk cannot express (a
// request that depends on the previous answer, a large body timed one at a time). node:http costs
// the load generator less CPU per request than fetch, which matters on a 2-core machine.
import { Agent, request as httpRequest } from 'node:http';

export interface Answer {
  status: number;
  body: string;
  ms: number;
}

export class JsonClient {
  private readonly agent: Agent;
  private readonly url: URL;
  private readonly headers: Record<string, string>;

  constructor(baseUrl: string, maxSockets: number, headers: Record<string, string> = {}) {
    this.url = new URL(baseUrl);
    this.headers = headers;
    this.agent = new Agent({ keepAlive: true, maxSockets });
  }

  send(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<Answer> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const started = performance.now();
    return new Promise((resolve, reject) => {
      const req = httpRequest(
        {
          agent: this.agent,
          host: this.url.hostname,
          port: this.url.port,
          method,
          path,
          headers: {
            ...this.headers,
            ...(payload === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), ms: performance.now() - started }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }

  async json<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
    const answer = await this.send(method, path, body);
    if (answer.status < 200 || answer.status >= 300) throw new Error(`${method} ${path} answered ${answer.status}: ${answer.body.slice(0, 500)}`);
    return JSON.parse(answer.body) as T;
  }

  close(): void {
    this.agent.destroy();
  }
}
