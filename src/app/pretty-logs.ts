// Log lines for a person at a terminal: pino-pretty in-process and synchronous (no worker thread),
// so they come out in order with what `npm start` prints after them.
import pinoPretty from 'pino-pretty';
import type { Writable } from 'node:stream';

export function prettyLogs(): Writable {
  return pinoPretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss', ignore: 'pid,hostname' });
}
