// The credentials file of an integration running on a server or a laptop (Node.js only, hence its own
// entry point, `@wfs/client/file-store`): the base URL, the client id and the refresh token, readable
// by the owner only, rewritten whole on every renewal so a crash never leaves half a file. The client
// secret is never written here: a refresh token is all an integration needs to keep.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { WfsClient, type WfsClientOptions } from './client.ts';

export interface StoredCredentials {
  baseUrl: string;
  clientId: string;
  refreshToken: string;
  /** ISO instant of the last write, for people reading the file. */
  updatedAt: string;
}

/** `$XDG_CONFIG_HOME/wfs/credentials.json`, else `~/.config/wfs/credentials.json` (where `wfs login` writes). */
export function defaultCredentialsFile(): string {
  const configHome = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(configHome, 'wfs', 'credentials.json');
}

export function readCredentials(file: string): StoredCredentials {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`No credentials in ${file}: run "wfs login" first.`);
  }
  const parsed = JSON.parse(text) as Partial<StoredCredentials>;
  for (const field of ['baseUrl', 'clientId', 'refreshToken'] as const) {
    if (typeof parsed[field] !== 'string' || parsed[field] === '') throw new Error(`${file} has no ${field}: run "wfs login" again.`);
  }
  return { baseUrl: parsed.baseUrl!, clientId: parsed.clientId!, refreshToken: parsed.refreshToken!, updatedAt: parsed.updatedAt ?? '' };
}

export function writeCredentials(file: string, credentials: Omit<StoredCredentials, 'updatedAt'>): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  const { baseUrl, clientId, refreshToken } = credentials;
  writeFileSync(temporary, `${JSON.stringify({ baseUrl, clientId, refreshToken, updatedAt: new Date().toISOString() }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

/** A client logged in with the file's refresh token; every renewed refresh token is written back at once. */
export function clientFromCredentials(file: string = defaultCredentialsFile(), options: Partial<WfsClientOptions> = {}): WfsClient {
  const credentials = readCredentials(file);
  return new WfsClient({
    ...options,
    baseUrl: credentials.baseUrl,
    refreshToken: credentials.refreshToken,
    // The old refresh token stops working after a grace period, so the new one must not be lost.
    onRefreshToken: (refreshToken) => writeCredentials(file, { ...credentials, refreshToken }),
  });
}
