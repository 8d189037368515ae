// How every form body (application/x-www-form-urlencoded: the OAuth endpoints, the login page, the
// console) is read: its bytes must be UTF-8, like a JSON body's (json-body.ts), else 400
// malformed_body in the route's shape — decoding them as they came turned a Latin-1 "é" of an old
// client into U+FFFD, and a password so typed into a silent "wrong secret". Then parsed by
// parseUrlEncoded, which remembers escapes that decode to no text (percent-decoding.ts).
import { isUtf8 } from 'node:buffer';
import type { FastifyInstance } from 'fastify';
import { ProblemError } from './errors.ts';
import { parseUrlEncoded } from './percent-decoding.ts';

/** Every form body of `app` (and of scopes that keep its parsers) read as UTF-8 and parsed by parseUrlEncoded. */
export function readFormBodies(app: FastifyInstance): void {
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'buffer' }, (_request, body, done) => {
    const bytes = body as Buffer;
    if (!isUtf8(bytes)) {
      done(new ProblemError({ code: 'malformed_body', detail: 'The request body is not valid UTF-8.' }), undefined);
      return;
    }
    done(null, parseUrlEncoded(bytes.toString('utf8')));
  });
}
