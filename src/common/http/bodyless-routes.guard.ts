import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
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
      const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, context.getClass(), handler.name) ?? {}) as object;
      // Keys are `<paramtype>:<index>`; a custom decorator (`@Tenant()`) has its own, so it is not the body.
      takes = Object.keys(args).some((key) => {
        const type = Number(key.split(':')[0]);
        return type === RouteParamtypes.BODY || type === RouteParamtypes.REQUEST || type === RouteParamtypes.RAW_BODY;
      });
      this.takesBody.set(handler, takes);
    }
    return takes;
  }
}

function isEmptyObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}
