// GET /.well-known/security.txt (RFC 9116): where a finder reports a vulnerability of this deployment.
// The operator names the contacts (SECURITY_CONTACT) and, optionally, a disclosure policy
// (SECURITY_POLICY); while no contact is configured the file does not exist (404) rather than name a
// mailbox nobody reads. docs/security.md says how to report one in the software itself.
import { Type } from 'typebox';
import type { App } from './http.ts';
import { problemResponses } from './schemas.ts';
import { notFound } from './errors.ts';

/** RFC 9116 §2.5.5 recommends an Expires less than a year ahead; the file is written afresh each time. */
const EXPIRES_AFTER_MS = 180 * 24 * 60 * 60 * 1000;

export interface SecurityTxtOptions {
  baseUrl: string;
  contacts: readonly string[];
  policy: string | undefined;
  now: () => number;
}

/** The file's fields, one a line, in RFC 9116's order of importance. */
export function securityTxt({ baseUrl, contacts, policy, now }: SecurityTxtOptions): string {
  const lines = [
    ...contacts.map((contact) => `Contact: ${contact}`),
    `Expires: ${new Date(now() + EXPIRES_AFTER_MS).toISOString().replace(/\.\d{3}Z$/, 'Z')}`,
    ...(policy ? [`Policy: ${policy}`] : []),
    'Preferred-Languages: en',
    `Canonical: ${baseUrl}/.well-known/security.txt`,
  ];
  return `${lines.join('\n')}\n`;
}

export async function securityTxtRoutes(app: App, options: SecurityTxtOptions): Promise<void> {
  app.get('/.well-known/security.txt', {
    schema: {
      tags: ['health'],
      operationId: 'securityTxt',
      summary: 'Where to report a vulnerability (RFC 9116)',
      description: 'The contacts (`SECURITY_CONTACT`) and disclosure policy (`SECURITY_POLICY`) the operator of this deployment configured, with an `Expires` 180 days ahead. `404` while no contact is configured.',
      security: [],
      response: { 200: { description: 'An RFC 9116 security.txt file.', content: { 'text/plain': { schema: Type.String() } } }, ...problemResponses(404) },
    },
  }, async (_request, reply) => {
    if (options.contacts.length === 0) throw notFound('This deployment publishes no security contact; see the operator\'s own pages.');
    return reply.type('text/plain; charset=utf-8').send(securityTxt(options));
  });
}
