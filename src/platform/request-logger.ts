// Each request's logger (request.log), made only when the request logs something. Fastify makes a
// pino child per request to carry its reqId, and pino serialises the bindings into a string when
// the child is made: about 1 µs of a cached read (docs/benchmarks.md), paid even at LOG_LEVEL=warn,
// where a request that succeeds logs nothing. This stands in for the child until a line at an
// enabled level is written; then the real child is made and takes every call after it.
import type { FastifyBaseLogger } from 'fastify';
import type { Bindings, ChildLoggerOptions } from 'pino';

/** pino's standard levels; a line is written when its level is at least the logger's `levelVal`. */
const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const;

type LevelName = keyof typeof LEVELS;
/** The root logger Fastify makes is pino's, whose numeric level FastifyBaseLogger does not name. */
type PinoLogger = FastifyBaseLogger & { readonly levelVal: number };

class RequestLogger implements FastifyBaseLogger {
  readonly #parent: FastifyBaseLogger;
  readonly #bindings: Bindings;
  readonly #options: ChildLoggerOptions;
  #child: FastifyBaseLogger | undefined;

  constructor(parent: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions) {
    this.#parent = parent;
    this.#bindings = bindings;
    this.#options = options;
  }

  #made(): FastifyBaseLogger {
    this.#child ??= this.#parent.child(this.#bindings, this.#options);
    return this.#child;
  }

  /**
   * Writes through the child when `level` is enabled; makes nothing otherwise. Reads pino's numeric
   * `levelVal`: its `level` getter looks the name up on every call (1 % of a cached read's CPU).
   */
  #write(level: LevelName, args: unknown[]): void {
    if (this.#child === undefined && LEVELS[level] < (this.#parent as PinoLogger).levelVal) return;
    const child = this.#made();
    Reflect.apply(child[level], child, args);
  }

  get level(): string {
    return (this.#child ?? this.#parent).level;
  }

  set level(level: string) {
    this.#made().level = level;
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#write('error', args);
  }

  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }

  info(...args: unknown[]): void {
    this.#write('info', args);
  }

  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }

  silent(): void {}

  child(bindings: Bindings, options?: ChildLoggerOptions): FastifyBaseLogger {
    return this.#made().child(bindings, options);
  }
}

/**
 * Fastify's `childLoggerFactory`: the request's logger, made lazily. A route with a log level of its
 * own gets its child at once (that level decides what is written, and only the child holds it).
 */
export function lazyRequestLogger(logger: FastifyBaseLogger, bindings: Bindings, options: ChildLoggerOptions): FastifyBaseLogger {
  return options.level === undefined ? new RequestLogger(logger, bindings, options) : logger.child(bindings, options);
}
