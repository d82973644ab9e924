import pino from 'pino';

type LogStream = ReturnType<typeof pino.destination>;

/** Lines are written once this many bytes are waiting (about 20 request lines)... */
const WRITE_AT_BYTES = 4096;
/** ...or this long after the last write, so a quiet service still shows its lines at once. */
const WRITE_AFTER_MS = 200;

let stream: LogStream | undefined;

/**
 * Where every log line goes: stdout, written asynchronously and in batches (pino's SonicBoom with
 * `sync: false`, `minLength` and `periodicFlush`). A line costs the request an append to a buffer;
 * one write on libuv's thread pool then carries a batch of lines, instead of one write call per
 * request on the event loop. Pino writes what is still buffered synchronously when the process
 * exits (a crash included); `flushLogs` waits for it while the event loop still runs (the shutdown
 * does, before exiting). Only a kill the process cannot see (SIGKILL) loses the last lines, at most
 * `WRITE_AT_BYTES` or `WRITE_AFTER_MS` of them. One stream per process, like nestjs-pino's logger.
 */
export function logStream(): LogStream {
  stream ??= pino.destination({ dest: 1, sync: false, minLength: WRITE_AT_BYTES, periodicFlush: WRITE_AFTER_MS });
  return stream;
}

/** Resolves once every line logged so far is written (at the latest after `timeoutMs`). */
export function flushLogs(timeoutMs = 2_000): Promise<void> {
  const destination = stream;
  if (!destination) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    try {
      // Calls back once the buffer is written out (with an error when stdout cannot be synced,
      // a pipe for instance: the lines are written all the same).
      destination.flush(done);
    } catch {
      done(); // already ended: nothing is pending
    }
  });
}
