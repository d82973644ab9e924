import { Type } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';

export const TOTAL_COUNT = 'X-Total-Count';

/** OpenAPI description of the `X-Total-Count` header every content list sends. */
export const TOTAL_COUNT_HEADER = {
  [TOTAL_COUNT]: {
    description: 'Number of matching records across all pages, ignoring limit and skip',
    schema: { type: 'integer' as const, minimum: 0, example: 42 },
  },
};

/** One page of a content list and the number of matching records across all pages. */
export interface ContentPage<T> {
  items: T[];
  total: number;
}

/**
 * A content list's answer: the page's items, the plain array the contract shows, with the total in
 * `X-Total-Count`. The handler takes the reply with `@Res({ passthrough: true })`; an interceptor
 * would put the route through Nest's rxjs pipeline on every request for one header.
 */
export function withTotalCount<T>(reply: FastifyReply, page: ContentPage<T>): T[] {
  void reply.header(TOTAL_COUNT, String(page.total));
  return page.items;
}

/** Documents a content list route: an array of `type`, the total in `X-Total-Count` (see `withTotalCount`). */
export function ContentListResponse(type: Type<unknown>, description?: string): MethodDecorator & ClassDecorator {
  return ApiOkResponse({ type: [type], headers: TOTAL_COUNT_HEADER, ...(description ? { description } : {}) });
}
