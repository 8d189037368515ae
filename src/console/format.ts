// How instants read on console pages: UTC, to the minute, the same for every viewer (the pages are
// rendered on the server, which does not know the reader's zone).

export function consoleDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function consoleDateTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export const FORMATTERS = { date: consoleDate, dateTime: consoleDateTime };
