import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };

export interface LoggerOptions {
  /** Readable lines instead of JSON (default: when stdout is a terminal). */
  pretty?: boolean;
  /** Where lines go (default: stdout). */
  destination?: DestinationStream;
}

/**
 * The hub's logger: one JSON object a line on stdout, readable lines when a person is watching.
 * Made once per hub and handed down, never global: a test process runs several hubs. Nothing
 * logged carries a token, a body or a credential; callers pass only the fields they mean.
 */
export function createLogger(level: Level | 'silent', options: LoggerOptions = {}): Logger {
  const readable = options.pretty ?? process.stdout.isTTY === true;
  let destination = options.destination;
  if (!destination && readable)
    destination = pretty({
      colorize: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname',
      singleLine: true,
      sync: true,
    });
  if (!destination) {
    // Asynchronous writes keep the request path off the write(2) call; endLog writes out the rest.
    const stdout = pino.destination({ dest: 1, sync: false });
    asynchronous.add(stdout);
    destination = stdout;
  }
  return pino({ level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}

type AsyncDestination = ReturnType<typeof pino.destination>;
const asynchronous = new WeakSet<object>();

/**
 * Calls back once every line logged so far is written, for a process about to exit. An
 * asynchronous destination is ended and waited for: its flush() returns at once, and the
 * synchronous flush at exit skips a write still in flight, which then lands after later lines.
 */
export function endLog(logger: Logger, done: () => void): void {
  const stream = (logger as unknown as Record<symbol, unknown>)[pino.symbols.streamSym];
  if (!(stream instanceof Object) || !asynchronous.has(stream)) return logger.flush(() => done());
  const destination = stream as AsyncDestination;
  destination.once('close', done);
  destination.end();
}

/**
 * The logger for start and stop lines: they are written at any level but silent, so an operator
 * who keeps only warnings still sees where the hub listens and when it stopped.
 */
export const lifecycleLogger = (logger: Logger): Logger =>
  logger.level === 'silent' ? logger : logger.child({}, { level: 'info' });

/** A logger that writes nothing (tests that start a hub in process). */
export const silentLogger = (): Logger => pino({ level: 'silent' });
