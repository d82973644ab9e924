import { applyDecorators, UseFilters, UseGuards } from '@nestjs/common';
import { IdempotencyGuard } from './idempotency.guard';
import { IdempotentReplayFilter } from './idempotent-replay';
import { UnsettledChangeFilter } from './idempotent-responses';

/**
 * The route honours `Idempotency-Key` (see `IdempotencyGuard`): written on every POST route, next
 * to `@Post`. A route guard, so it runs after the global ones and knows the request's tenant; not a
 * global one, since no other method reads the header.
 *
 * A replay is answered by `IdempotentReplayFilter` from what the guard throws: a Nest guard stops a
 * route only by throwing. An interceptor could answer it by returning the stored body instead, but
 * would put every POST, with a key or without, through Nest's rxjs pipeline. A write whose outcome
 * is unknown settles its key later (`UnsettledChangeFilter`).
 */
export const Idempotent = () =>
  applyDecorators(UseGuards(IdempotencyGuard), UseFilters(IdempotentReplayFilter, UnsettledChangeFilter));
