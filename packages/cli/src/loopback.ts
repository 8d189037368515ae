// The loopback redirect of a native app (RFC 8252 §7.3): a one-shot HTTP listener on 127.0.0.1 and
// an ephemeral port that receives the authorization response and tells the browser it may close.
import { createServer, type Server } from 'node:http';

export interface Loopback {
  /** The registered redirect URI with this listener's port. */
  redirectUri: string;
  /** The whole address the browser was sent to (code, state, iss), at the first request to the redirect path. */
  response: Promise<URL>;
  close(): void;
}

/** A page of fixed text (nothing from the request is echoed, so nothing needs escaping). */
function page(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${message}</p></body></html>`;
}

export async function listenOnLoopback(registeredRedirectUri: string, timeoutMs: number): Promise<Loopback> {
  const template = new URL(registeredRedirectUri);
  // The address the browser comes back to: the registered URI with our port (set once listening).
  const redirect = new URL(template);
  let server: Server | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const response = new Promise<URL>((resolve, reject) => {
    server = createServer((request, reply) => {
      const url = new URL(request.url ?? '/', redirect);
      if (url.pathname !== template.pathname) {
        reply.writeHead(404, { 'content-type': 'text/plain' }).end('Not found');
        return;
      }
      const failed = url.searchParams.has('error');
      reply.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'" })
        .end(failed ? page('Login failed', 'Return to the terminal for details.') : page('Logged in', 'You can close this window and return to the terminal.'));
      resolve(url);
    });
    timer = setTimeout(() => reject(new Error(`No login within ${Math.round(timeoutMs / 1000)} seconds.`)), timeoutMs);
  });
  await new Promise<void>((resolve, reject) => {
    server?.once('error', reject);
    server?.listen(0, template.hostname.replace(/^\[|\]$/g, ''), resolve);
  });
  const address = server?.address();
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
