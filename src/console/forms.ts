// Forms of the console: the lines of a textarea, and a refused change (bad input, a conflict) shown
// on the page again in words, with what was typed, instead of an error page.
import type { FastifyReply } from 'fastify';
import { ProblemError } from '../platform/errors.ts';

/** Field paths of the domain's validation errors as the form labels them. */
const LABELS: [RegExp, (match: RegExpExecArray) => string][] = [
  [/^\/name$/, () => 'Name'],
  [/^\/redirectUris$/, () => 'Redirect URIs'],
  [/^\/redirectUris\/(\d+)$/, (m) => `Redirect URI on line ${Number(m[1]) + 1}`],
  [/^\/email$/, () => 'Email'],
  [/^\/reason$/, () => 'Reason'],
  [/^\/grant$/, () => 'Grant'],
  [/^\/overlapSeconds$/, () => 'The overlap'],
  [/^\/issuer$/, () => 'Issuer'],
  [/^\/clientId$/, () => 'Client ID'],
  [/^\/clientSecret$/, () => 'Client secret'],
  [/^\/domains$/, () => 'Domains'],
  [/^\/domains\/(\d+)$/, (m) => `Domain on line ${Number(m[1]) + 1}`],
  [/^\/url$/, () => 'URL'],
  [/^\/types$/, () => 'Message types'],
  [/^\/from$/, () => 'From'],
  [/^\/to$/, () => 'To'],
];

function labelled(path: string): string {
  for (const [pattern, label] of LABELS) {
    const match = pattern.exec(path);
    if (match) return label(match);
  }
  return path;
}

/** One sentence per problem: "Redirect URI on line 2 must use https; …". */
export function problemText(problem: ProblemError): string {
  if (!problem.errors?.length) return problem.message;
  return problem.errors.map((e) => `${labelled(e.path)} ${e.message}.`).join(' ');
}

/** The non-empty lines of a textarea (one value per line). */
export function lines(text: string | undefined): string[] {
  return (text ?? '').split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '');
}

/**
 * Runs a change; a 400 or 409 from the domain is shown with `show` (the form's page again, with the
 * reason and the status), anything else (a 404 for another organisation's id) goes to the error page.
 */
export async function orShowProblem(work: () => Promise<FastifyReply>, show: (status: number, message: string) => Promise<FastifyReply>): Promise<FastifyReply> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof ProblemError && (error.status === 400 || error.status === 409)) return show(error.status, problemText(error));
    throw error;
  }
}
