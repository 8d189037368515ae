// The loopback redirect of a native app (RFC 8252 §7.3): a one-shot HTTP listener on 127.0.0.1 and
// an ephemeral port that receives the authorization response and tells the browser it may close.
import { createServer, type Server } from 'node:http';
import { escapeHtml, htmlPage } from '../platform/http.ts';

export interface Loopback {
  /** The registered redirect URI with this listener's port. */
  redirectUri: string;
  /** The query parameters of the first request to the redirect path. */
  response: Promise<URLSearchParams>;
  close(): void;
}

function page(title: string, message: string): string {
  return htmlPage(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}

export async function listenOnLoopback(registeredRedirectUri: string, timeoutMs: number): Promise<Loopback> {
  const template = new URL(registeredRedirectUri);
  let server: Server | undefined;
  let timer: NodeJS.Timeout | undefined;
  const response = new Promise<URLSearchParams>((resolve, reject) => {
    server = createServer((request, reply) => {
      const url = new URL(request.url ?? '/', template);
      if (url.pathname !== template.pathname) {
        reply.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
        return;
      }
      const failed = url.searchParams.has('error');
      reply.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' })
        .end(failed ? page('Login failed', 'Return to the terminal for details.') : page('Logged in', 'You can close this window and return to the terminal.'));
      resolve(url.searchParams);
    });
    timer = setTimeout(() => reject(new Error(`No login within ${Math.round(timeoutMs / 1000)} seconds.`)), timeoutMs);
  });
  await new Promise<void>((resolve, reject) => {
    server?.once('error', reject);
    server?.listen(0, template.hostname.replace(/^\[|\]$/g, ''), resolve);
  });
  const address = server?.address();
  const redirect = new URL(template);
  redirect.port = String(typeof address === 'object' && address ? address.port : 0);
  return {
    redirectUri: redirect.toString(),
    response,
    close: () => {
      clearTimeout(timer);
      server?.closeAllConnections();
      server?.close();
    },
  };
}
