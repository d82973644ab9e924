import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { CUSTOM_ROUTE_ARGS_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/internal';
import type { FastifyRequest } from 'fastify';
import { RequestValidationException } from '../pipes/validation.pipe';

/**
 * Unknown body fields are a 400 everywhere (CONTRACT.md), also on a route that takes no body at
 * all (a soft delete, a restore, a delete), where no DTO is there to refuse them: a body with
 * fields sent to such a route is refused, each field named as the validation pipe names an unknown
 * one. An empty body (`{}`, or none) passes. Which handlers take a body is read from their
 * parameters once per handler.
 */
@Injectable()
export class BodylessRoutesGuard implements CanActivate {
  private readonly takesBody = new WeakMap<object, boolean>();

  canActivate(context: ExecutionContext): boolean {
    const body = context.switchToHttp().getRequest<FastifyRequest>().body;
    if (body === undefined || body === null || isEmptyObject(body)) return true;
    if (this.handlerTakesBody(context)) return true;
    const fields = typeof body === 'object' && !Array.isArray(body) ? Object.keys(body) : [];
    throw new RequestValidationException(
      fields.length > 0
        ? fields.map((field) => ({ field, messages: [`property ${field} should not exist`] }))
        : [{ field: 'body', messages: ['this request takes no body'] }],
    );
  }

  private handlerTakesBody(context: ExecutionContext): boolean {
    const handler = context.getHandler();
    let takes = this.takesBody.get(handler);
    if (takes === undefined) {
      takes = takesBody(Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name), handler.length);
      this.takesBody.set(handler, takes);
    }
    return takes;
  }
}

const BODY_TYPES: readonly number[] = [RouteParamtypes.BODY, RouteParamtypes.RAW_BODY, RouteParamtypes.REQUEST];

/**
 * Whether a handler takes the body (`@Body`, `@RawBody`, or `@Req` for the routes that read the
 * request themselves), read from Nest's own record of its parameters: `<paramtype>:<index>` keys
 * and `RouteParamtypes`, which Nest keeps internal (`@nestjs/common/internal`);
 * bodyless-routes.guard.spec pins the form. A record in any other form counts as taking a body, so
 * a Nest that changed it refuses nothing here, as before this guard.
 */
export function takesBody(args: object | undefined, parameterCount: number): boolean {
  if (args === undefined) return parameterCount > 0;
  return Object.keys(args).some((key) => {
    if (key.includes(CUSTOM_ROUTE_ARGS_METADATA)) return false; // a decorator of the service's (`@Tenant()`)
    const match = /^(\d+):\d+$/.exec(key);
    return !match || BODY_TYPES.includes(Number(match[1]));
  });
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}
