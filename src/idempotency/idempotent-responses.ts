import { Catch, Injectable, Logger, type ArgumentsHost } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AllExceptionsFilter } from '../common/filters/all-exceptions.filter';
import { UnsettledChange } from '../tenancy/recorded-changes';
import type { IdempotentRequestContext } from './idempotent-request';
import { IdempotencyStore } from './idempotency.store';

const logger = new Logger('Idempotency');

/**
 * Settles the record `IdempotencyGuard` opened, from the answer itself, before it is sent: a success
 * (below 400) is stored for the key's retries, as sent (status and serialised body); a refusal (4xx),
 * whatever raised it (the route, a pipe after the guard, the exception filter), releases the key so
 * that a retry runs again. A 5xx keeps the key in progress: a write of the request may have happened
 * without its answer (a lost reply, an outage), so a retry gets 409 until the record's lease lapses
 * (`IN_PROGRESS_LEASE_MS`) instead of running the change a second time at once; a write whose
 * outcome is known to be unknown settles the key later (`UnsettledChangeFilter`). Requests without a
 * record pass straight through.
 */
export function settleIdempotentResponses(fastify: FastifyInstance, store: IdempotencyStore): void {
  fastify.addHook(
    'onSend',
    (
      request: FastifyRequest & IdempotentRequestContext,
      reply: FastifyReply,
      payload: unknown,
      done: (error: null, payload: unknown) => void,
    ) => {
      const record = request.idempotencyRecord;
      if (!record) return done(null, payload);
      request.idempotencyRecord = undefined;
      const statusCode = reply.statusCode;
      if (statusCode >= 500) return done(null, payload);
      const settled =
        statusCode >= 400
          ? store.release(record.tenant, record.recordId).catch((failure: Error) => {
              logger.warn(`Releasing an idempotency key failed: ${failure.message}`);
            })
          : store
              .complete(record.recordId, statusCode, typeof payload === 'string' && payload !== '' ? payload : null)
              .catch((failure: Error) => {
                // The work is done: answer it. Retries of this key get 409 until the key expires.
                logger.error(`Storing an idempotent response failed: ${failure.message}`);
              });
      void settled.then(() => done(null, payload));
    },
  );
}

/**
 * A write whose answer was lost and whose record could not be read (`UnsettledChange`) answers 503
 * as any outage, and its key stays in progress until the events relay could read the record: a write
 * that did not happen releases it, so a retry runs. One that happened marks the key `unstored` (the
 * request ran and its answer is lost: a retry gets 409 until the key expires, never a second run),
 * unless the route keeps the key with what it creates (payments): released, its retry answers that.
 */
@Catch(UnsettledChange)
@Injectable()
export class UnsettledChangeFilter extends AllExceptionsFilter {
  constructor(
    adapterHost: HttpAdapterHost,
    private readonly store: IdempotencyStore,
  ) {
    super(adapterHost);
  }

  override catch(exception: UnsettledChange, host: ArgumentsHost): void {
    const { idempotencyRecord: record, idempotencyKeptByRoute } = host
      .switchToHttp()
      .getRequest<IdempotentRequestContext>();
    if (record) {
      void exception.settled
        .then((happened) =>
          happened && !idempotencyKeptByRoute
            ? this.store.markRan(record.recordId)
            : this.store.release(record.tenant, record.recordId),
        )
        .catch((failure: Error) =>
          logger.warn(
            `Settling the Idempotency-Key of an unsettled write failed, the key lapses with its lease: ${failure.message}`,
          ),
        );
    }
    super.catch(exception, host);
  }
}
