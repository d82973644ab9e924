import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Logger as Pino } from 'pino';
import { logStream } from './log-stream';

/**
 * Nest's own start-up detail, one line per module, controller and route: at `debug`, so the default
 * level shows what a person starting the service needs (the database, the address) and nothing else.
 */
const START_UP_DETAIL = new Set([
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestFactory',
  'NestApplication',
]);

let pretty: DestinationStream | undefined;

/**
 * Where log lines go. One format per process: JSON lines (batched, see logStream) wherever a
 * program reads them, pino-pretty's coloured lines only for a person at a terminal in development.
 * pino-pretty formats on the main thread; it is loaded only then, never in production.
 */
export function logDestination(nodeEnv: string): DestinationStream {
  if (nodeEnv !== 'development' || !process.stdout.isTTY) return logStream();
  if (!pretty) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const pinoPretty = require('pino-pretty') as typeof import('pino-pretty');
    pretty = pinoPretty({
      sync: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,context',
      messageFormat: '{if context}[{context}] {end}{msg}',
    });
  }
  return pretty;
}

/** Nest's logger calls as pino calls (`log` is `info`; the context, given last, becomes a field), start-up detail at debug. */
export class AppLogger implements LoggerService {
  constructor(private readonly inner: LoggerService) {}

  log(message: unknown, ...rest: unknown[]): void {
    const context = rest[rest.length - 1];
    if (typeof context === 'string' && START_UP_DETAIL.has(context)) this.inner.debug?.(message, ...rest);
    else this.inner.log(message, ...rest);
  }

  error(message: unknown, ...rest: unknown[]): void {
    this.inner.error(message, ...rest);
  }

  warn(message: unknown, ...rest: unknown[]): void {
    this.inner.warn(message, ...rest);
  }

  debug(message: unknown, ...rest: unknown[]): void {
    this.inner.debug?.(message, ...rest);
  }

  verbose(message: unknown, ...rest: unknown[]): void {
    this.inner.verbose?.(message, ...rest);
  }

  fatal(message: unknown, ...rest: unknown[]): void {
    this.inner.fatal?.(message, ...rest);
  }
}

/**
 * The logger of the entry point before the application exists (configuration, the embedded
 * database), in the application's format and level, so the first lines of a start look like the rest.
 */
export function bootstrapLogger(level: string, nodeEnv: string): LoggerService {
  const root: Pino = pino({ level }, logDestination(nodeEnv));
  const at =
    (method: 'info' | 'error' | 'warn' | 'debug' | 'trace' | 'fatal') =>
    (message: unknown, ...rest: unknown[]) => {
      const context =
        rest.length > 0 && typeof rest[rest.length - 1] === 'string' ? (rest[rest.length - 1] as string) : undefined;
      root[method](context ? { context } : {}, String(message));
    };
  return new AppLogger({
    log: at('info'),
    error: at('error'),
    warn: at('warn'),
    debug: at('debug'),
    verbose: at('trace'),
    fatal: at('fatal'),
  });
}
