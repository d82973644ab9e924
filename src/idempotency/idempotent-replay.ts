import { ArgumentsHost, Catch, ExceptionFilter } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { IDEMPOTENT_REPLAYED_HEADER } from './request-fingerprint';

/**
 * Thrown by `IdempotencyGuard` for a retry of a request that already ran: the route must not run
 * again, and a guard stops a route by throwing. Not an error: `IdempotentReplayFilter` answers it
 * with the stored response.
 */
export class IdempotentReplay extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: unknown,
  ) {
    super('Idempotent replay');
    this.name = 'IdempotentReplay';
  }
}

/** Answers a replay with the first request's status and body, marked `Idempotent-Replayed: true`. */
@Catch(IdempotentReplay)
export class IdempotentReplayFilter implements ExceptionFilter<IdempotentReplay> {
  catch(replay: IdempotentReplay, host: ArgumentsHost): void {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    void reply.status(replay.statusCode).header(IDEMPOTENT_REPLAYED_HEADER, 'true').send(replay.body);
  }
}
