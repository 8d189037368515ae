// The integrator's side of `wfs`: `wfs login` (browser login, refresh token stored in a file only
// the user can read; the client secret is asked for at each login and never stored) and `wfs api`
// (any API call with that login, tokens renewed automatically).
// Failures follow the CLI's convention: text on standard error, with --json a last line {error, errors?}.
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import type { Command } from 'commander';
import { printFailure } from './output.ts';
import { exitWith, terminalOf, type Terminal } from './terminal.ts';
import { ApiError, TokenError, type Query, type WfsClient } from '../../client/src/index.ts';
import { clientFromCredentials, defaultCredentialsFile, readCredentials, writeCredentials } from '../../client/src/file-store.ts';
import { login, openBrowser } from './login.ts';

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** Options of `wfs api` that become query parameters, by their API name. */
const QUERY_OPTIONS: Record<string, string> = { from: 'from', to: 'to', date: 'date', companyId: 'companyId', userId: 'userId', limit: 'limit', cursor: 'cursor' };

function jsonWanted(command: Command): boolean {
  return Boolean(command.optsWithGlobals<{ json?: boolean }>().json);
}

async function report(command: Command, work: () => Promise<void>): Promise<void> {
  try {
    await work();
  } catch (error) {
    const errors = error instanceof ApiError ? error.problem.errors : undefined;
    const hint = error instanceof TokenError && error.status === 401 ? ' Run "wfs login" again.' : '';
    const message = `${error instanceof Error ? error.message : String(error)}${hint}`;
    printFailure(terminalOf(command), jsonWanted(command), message, errors);
    exitWith(command, 1);
  }
}

/** One line from the person at the terminal (prompts go to standard error, so --json output stays clean). */
async function ask(terminal: Terminal, question: string): Promise<string> {
  const prompt = createInterface({ input: terminal.stdin, output: terminal.stderr });
  try {
    return await prompt.question(question);
  } finally {
    prompt.close();
  }
}

interface LoginFlags {
  baseUrl?: string;
  clientId?: string;
  clientSecret?: string;
  redirectUri: string;
  audience: string;
  credentialsFile: string;
  browser: boolean;
  timeout: string;
}

function loginCommand(program: Command): void {
  program
    .command('login')
    .description('Log the API User in through the browser (authorization code with PKCE, loopback redirect) and store the refresh token')
    .option('--base-url <url>', 'the service\'s BASE_URL (default: from the credentials file)')
    .option('--client-id <id>', 'the API Client id (default: from the credentials file)')
    .option('--client-secret <secret>', 'the API Client secret (default: $WFS_CLIENT_SECRET, else asked for; never stored)')
    .option('--redirect-uri <uri>', 'a redirect URI registered on the API Client: a loopback one without port (wfs listens on a free port), or a page (e.g. the demo\'s /demo/callback) whose address you then paste', 'http://127.0.0.1/callback')
    .option('--audience <audience>', 'token audience', 'service-api')
    .option('--credentials-file <path>', 'where to store the refresh token (mode 0600)', defaultCredentialsFile())
    .option('--no-browser', 'print the login URL without opening a browser')
    .option('--timeout <seconds>', 'how long to wait for the login', '300')
    .action(async (flags: LoginFlags, command: Command) => report(command, async () => {
      const terminal = terminalOf(command);
      const stored = (() => {
        try {
          return readCredentials(flags.credentialsFile);
        } catch {
          return undefined;
        }
      })();
      const baseUrl = flags.baseUrl ?? stored?.baseUrl;
      const clientId = flags.clientId ?? stored?.clientId;
      if (!baseUrl || !clientId) throw new Error('Give --base-url and --client-id (the credentials file of an earlier login names them too).');
      const clientSecret = flags.clientSecret ?? terminal.env.WFS_CLIENT_SECRET ?? (await ask(terminal, 'API Client secret (not stored): '));
      if (clientSecret.trim() === '') throw new Error('Give the API Client secret: --client-secret, $WFS_CLIENT_SECRET, or at the prompt.');
      const timeoutSeconds = Number(flags.timeout);
      if (!(timeoutSeconds > 0)) throw new Error(`--timeout takes a number of seconds, got "${flags.timeout}".`);
      const tokens = await login({
        baseUrl,
        clientId,
        clientSecret,
        redirectUri: flags.redirectUri,
        audience: flags.audience,
        timeoutMs: timeoutSeconds * 1000,
        announce: async (url) => {
          const opened = flags.browser && (await openBrowser(url));
          terminal.stderr.write(`${opened ? 'Opening your browser. If it does not open, visit' : 'Open this address in a browser and log in as the API User'}:\n${url}\n`);
        },
        ask: (question) => ask(terminal, question),
      });
      writeCredentials(flags.credentialsFile, { baseUrl: baseUrl.replace(/\/+$/, ''), clientId, refreshToken: tokens.refreshToken });
      const { claims } = tokens;
      const summary = `Logged in as ${claims.email ?? 'the API User'} (company ${claims.company_id ?? '?'}). Refresh token stored in ${flags.credentialsFile} (readable only by you).`;
      if (jsonWanted(command)) {
        terminal.stderr.write(`${summary}\n`);
        terminal.stdout.write(`${JSON.stringify({ credentialsFile: flags.credentialsFile, baseUrl, clientId, email: claims.email ?? null, companyId: claims.company_id ?? null })}\n`);
      } else {
        terminal.stdout.write(`${summary}\n`);
      }
    }));
}

interface ApiFlags {
  credentialsFile: string;
  data?: string;
  query: string[];
  all?: boolean;
  [option: string]: unknown;
}

function body(data: string | undefined): unknown {
  if (data === undefined) return undefined;
  const text = data.startsWith('@') ? readFileSync(data.slice(1), 'utf8') : data;
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`--data is not valid JSON${data.startsWith('@') ? ` (${data.slice(1)})` : ''}.`);
  }
}

function queryFrom(flags: ApiFlags): Query {
  const query: Query = {};
  for (const [option, name] of Object.entries(QUERY_OPTIONS)) {
    if (typeof flags[option] === 'string') query[name] = flags[option];
  }
  for (const pair of flags.query) {
    const at = pair.indexOf('=');
    if (at < 1) throw new Error(`--query takes name=value, got "${pair}".`);
    query[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return query;
}

/** With --all, follows nextCursor and answers one collection holding every page's items. */
async function call(client: WfsClient, method: string, path: string, query: Query, payload: unknown, all: boolean): Promise<unknown> {
  const first = await client.request(method, path, { query, body: payload });
  if (!all) return first;
  const data: unknown[] = [];
  let page = first as { data?: unknown[]; nextCursor?: string | null };
  for (;;) {
    if (!Array.isArray(page.data)) throw new Error('--all needs a collection ({data, nextCursor}).');
    data.push(...page.data);
    if (!page.nextCursor) return { data, nextCursor: null };
    page = (await client.request(method, path, { query: { ...query, cursor: page.nextCursor } })) as typeof page;
  }
}

function apiCommand(program: Command): void {
  program
    .command('api')
    .description('Call the API as the logged-in API User and print the JSON answer (ID tokens are renewed automatically)')
    .argument('<method>', 'GET, POST, PUT, PATCH or DELETE')
    .argument('<path>', 'e.g. /api/v1/company/users')
    .option('--from <date>', 'query parameter from (YYYY-MM-DD)')
    .option('--to <date>', 'query parameter to (YYYY-MM-DD)')
    .option('--date <date>', 'query parameter date (YYYY-MM-DD)')
    .option('--company-id <id>', 'query parameter companyId')
    .option('--user-id <id>', 'query parameter userId')
    .option('--limit <n>', 'query parameter limit')
    .option('--cursor <cursor>', 'query parameter cursor')
    .option('-q, --query <name=value>', 'any other query parameter (repeatable)', (value: string, previous: string[]) => [...previous, value], [])
    .option('-d, --data <json|@file>', 'request body: JSON text, or @file.json')
    .option('--all', 'follow nextCursor and print every page as one collection')
    .option('--credentials-file <path>', 'the file `wfs login` wrote', defaultCredentialsFile())
    .action(async (method: string, path: string, flags: ApiFlags, command: Command) => report(command, async () => {
      const verb = method.toUpperCase();
      if (!METHODS.includes(verb)) throw new Error(`Unknown method ${method}; use one of ${METHODS.join(', ')}.`);
      const client = clientFromCredentials(flags.credentialsFile);
      const result = await call(client, verb, path, queryFrom(flags), body(flags.data), Boolean(flags.all));
      terminalOf(command).stdout.write(`${jsonWanted(command) ? JSON.stringify(result) : JSON.stringify(result, null, 2)}\n`);
    }));
}

export function registerIntegratorCommands(program: Command): void {
  loginCommand(program);
  apiCommand(program);
}
