// A JSON body parser that remembers the source text of every number. JSON.parse turns "0.1" into
// the nearest double and "1.0000000000000001" into 1, so the decimals a client actually sent are
// only knowable from the text; amounts are read from it exactly (decimal.ts), never from a float.
// The inbound routes install it with acceptJsonOnly (src/platform/http.ts).

interface ReviverContext {
  source?: string;
}

const numberSources = new WeakMap<object, Map<string, string>>();

function remember(holder: object, key: string, source: string): void {
  let sources = numberSources.get(holder);
  if (sources === undefined) {
    sources = new Map();
    numberSources.set(holder, sources);
  }
  sources.set(key, source);
}

/**
 * Parses JSON like JSON.parse, recording each number's text. A "__proto__" key is refused outright,
 * as Fastify's own parser does, so no later copy of the body can reach an object's prototype.
 */
export function parseJsonKeepingNumbers(text: string): unknown {
  return JSON.parse(text, function reviver(this: object, key: string, value: unknown, context?: ReviverContext) {
    if (key === '__proto__') throw new SyntaxError('"__proto__" is not allowed as a property name');
    if (typeof value === 'number' && context?.source !== undefined) remember(this, key, context.source);
    return value;
  });
}

/** The text a number property was sent as, or its shortest round-trip form when it was not parsed here. */
export function numberText(holder: object, key: string, value: number): string {
  return numberSources.get(holder)?.get(key) ?? String(value);
}
