// The integrator's credentials file: where `wfs login` keeps the refresh token (and the client
// credentials a later login needs), readable by the user only, rewritten whole on every renewal so
// a crash never leaves half a file.
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { WfsClient, type WfsClientOptions } from '../../packages/client/src/index.ts';

export interface Credentials {
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  refreshToken: string;
  /** ISO instant of the last write, for people reading the file. */
  updatedAt: string;
}

export function defaultCredentialsFile(): string {
  const configHome = process.env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(configHome, 'wfs', 'credentials.json');
}

export function readCredentials(file: string): Credentials {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`No credentials in ${file}: run "wfs login" first.`);
  }
  const parsed = JSON.parse(text) as Partial<Credentials>;
  for (const field of ['baseUrl', 'clientId', 'refreshToken'] as const) {
    if (typeof parsed[field] !== 'string' || parsed[field] === '') throw new Error(`${file} has no ${field}: run "wfs login" again.`);
  }
  return parsed as Credentials;
}

export function writeCredentials(file: string, credentials: Omit<Credentials, 'updatedAt'>): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify({ ...credentials, updatedAt: new Date().toISOString() }, null, 2)}\n`, { mode: 0o600 });
  chmodSync(temporary, 0o600);
  renameSync(temporary, file);
}

/** A client logged in with the file's refresh token; every renewed refresh token is written back at once. */
export function clientFromCredentials(file: string, options: Partial<WfsClientOptions> = {}): WfsClient {
  const credentials = readCredentials(file);
  return new WfsClient({
    ...options,
    baseUrl: credentials.baseUrl,
    refreshToken: credentials.refreshToken,
    // The old refresh token stops working after a grace period, so the new one must not be lost.
    onRefreshToken: (refreshToken) => writeCredentials(file, { ...credentials, refreshToken }),
  });
}
