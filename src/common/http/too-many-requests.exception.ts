import { HttpException, HttpStatus } from '@nestjs/common';

/**
 * A 429 that says when to come back: the global filter answers `retryAfterSeconds` as the
 * `Retry-After` header, so a client (or a person reading the answer) waits exactly that long
 * instead of guessing from the message.
 */
export class TooManyRequestsException extends HttpException {
  readonly retryAfterSeconds: number;

  constructor(message: string, retryAfterSeconds: number) {
    const seconds = Math.max(1, Math.ceil(retryAfterSeconds));
    super(`${message}. Try again in ${seconds} seconds`, HttpStatus.TOO_MANY_REQUESTS);
    this.retryAfterSeconds = seconds;
  }
}
