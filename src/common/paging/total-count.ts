import { applyDecorators, CallHandler, ExecutionContext, Injectable, NestInterceptor, Type, UseInterceptors } from '@nestjs/common';
import { ApiOkResponse } from '@nestjs/swagger';
import type { FastifyReply } from 'fastify';
import { map, Observable } from 'rxjs';

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

/** Sends a handler's `ContentPage` as the plain array the contract shows, the total in `X-Total-Count`. */
@Injectable()
export class TotalCountInterceptor<T> implements NestInterceptor<ContentPage<T>, T[]> {
  intercept(context: ExecutionContext, next: CallHandler<ContentPage<T>>): Observable<T[]> {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    return next.handle().pipe(
      map((page) => {
        reply.header(TOTAL_COUNT, String(page.total));
        return page.items;
      }),
    );
  }
}

/**
 * A content list route: the handler returns a `ContentPage<T>`; the response is its items as a JSON
 * array with the total in `X-Total-Count`, and the document says so.
 */
export function ContentListResponse(type: Type<unknown>, description?: string) {
  return applyDecorators(
    UseInterceptors(TotalCountInterceptor),
    ApiOkResponse({ type: [type], headers: TOTAL_COUNT_HEADER, ...(description ? { description } : {}) }),
  );
}
