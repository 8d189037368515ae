// A JSON body parser that keeps the exact decimal value of every number. JSON.parse turns
// "1.0000000000000001" into 1 and "12345678901234567.89" into the nearest double, so the decimals a
// client actually sent are only knowable from the text; amounts are read from it exactly
// (decimal.ts), never from a float. The inbound routes install it (routes.ts).
//
// Without a reviver (one call per value, ~1 µs each: 1.5 s for a million zeros): a number of at most
// 15 digits and no exponent has a double whose shortest form (String) is the same decimal, so only
// the other numbers — found by the body's measuring pass (measureJson) — need their text kept. They
// are rewritten into marked strings before JSON.parse and turned back into numbers after it.
import { randomBytes } from 'node:crypto';
import type { JsonShape } from '../platform/json-body.ts';

const numberSources = new WeakMap<object, Map<string, string>>();

function remember(holder: object, key: string, source: string): void {
  let sources = numberSources.get(holder);
  if (sources === undefined) {
    sources = new Map();
    numberSources.set(holder, sources);
  }
  sources.set(key, source);
}

/** `text` with each inexact number replaced by the JSON string `"\u0000<marker><number text>"`. */
function markNumbers(text: string, inexact: number[], marker: string): string {
  const parts: string[] = [];
  let from = 0;
  for (let i = 0; i < inexact.length; i += 2) {
    const [start, end] = [inexact[i] as number, inexact[i + 1] as number];
    parts.push(text.slice(from, start), `"\\u0000${marker}`, text.slice(start, end), '"');
    from = end;
  }
  parts.push(text.slice(from));
  return parts.join('');
}

/** Turns the marked strings of `root` back into numbers, remembering their text. */
function restoreNumbers(root: unknown, prefix: string): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const holder = pending.pop();
    if (holder === null || typeof holder !== 'object') continue;
    const entries: Array<[string | number, unknown]> = Array.isArray(holder) ? holder.map((value, index) => [index, value]) : Object.entries(holder);
    for (const [key, value] of entries) {
      if (typeof value === 'string' && value.startsWith(prefix)) {
        const source = value.slice(prefix.length);
        (holder as Record<string | number, unknown>)[key] = Number(source);
        remember(holder, String(key), source);
      } else if (value !== null && typeof value === 'object') {
        pending.push(value);
      }
    }
  }
}

/**
 * Parses the measured JSON `text` with `parse` (JSON.parse as Fastify's parser does it), keeping the
 * text of every number a double cannot hold exactly. The marker is random per body, so no string a
 * client sends can pass for a number (and one holding U+0000 is refused anyway).
 */
export function parseJsonKeepingNumbers(text: string, shape: Pick<JsonShape, 'inexactNumbers'>, parse: (text: string) => unknown = JSON.parse): unknown {
  if (shape.inexactNumbers.length === 0) return parse(text);
  const marker = `${randomBytes(8).toString('hex')}:`;
  const body = parse(markNumbers(text, shape.inexactNumbers, marker));
  restoreNumbers(body, `\u0000${marker}`);
  return body;
}

/**
 * The text a number property was sent as, when a double may not keep it; undefined for the others,
 * whose shortest form (String) is the decimal sent — and for properties not parsed here.
 */
export function keptNumberText(holder: object, key: string): string | undefined {
  return numberSources.get(holder)?.get(key);
}
