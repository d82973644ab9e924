import type { ExecutionContext, Type } from '@nestjs/common';
import type { Reflector } from '@nestjs/core';

/**
 * One metadata key of a route (the handler's value, else its controller's, as
 * `Reflector.getAllAndOverride`), read once per route and remembered: decorators are fixed when the
 * application starts, so the answer cannot change. The guards ask on every request; each question
 * was two `Reflect.getMetadata` lookups.
 */
export class RouteMetadata<T> {
  private readonly byController = new WeakMap<Type, WeakMap<object, { value: T | undefined }>>();

  constructor(
    private readonly reflector: Reflector,
    private readonly key: string,
  ) {}

  of(context: ExecutionContext): T | undefined {
    const controller = context.getClass();
    const handler = context.getHandler();
    let routes = this.byController.get(controller);
    if (!routes) {
      routes = new WeakMap();
      this.byController.set(controller, routes);
    }
    let known = routes.get(handler);
    if (!known) {
      known = { value: this.reflector.getAllAndOverride<T | undefined>(this.key, [handler, controller]) };
      routes.set(handler, known);
    }
    return known.value;
  }
}
