import { RequestMethod, type Type, UseFilters, UseGuards } from '@nestjs/common';
import { GUARDS_METADATA, METHOD_METADATA, MODULE_METADATA } from '@nestjs/common/constants';
import { IdempotencyGuard } from './idempotency.guard';
import { IdempotentReplayFilter } from './idempotent-replay';

/** A controller method routed as POST. */
export interface PostHandler {
  controller: Type;
  name: string;
  handler: object;
}

/**
 * Binds `IdempotencyGuard` (and the filter that answers its replays) to every POST route of the
 * controllers reachable from `root`, as if each POST handler carried `@UseGuards(IdempotencyGuard)
 * @UseFilters(IdempotentReplayFilter)`; call it before Nest scans the modules (`app.module.ts` does,
 * when it loads). Route guards run after the global ones, so the request's tenant is known. Not a
 * global guard: every GET, PUT, PATCH and DELETE would run it for a header only POSTs read. Binding
 * twice changes nothing.
 */
export function bindIdempotencyToPostRoutes(root: Type): void {
  for (const { controller, name, handler } of postHandlers(root)) {
    const bound = (Reflect.getMetadata(GUARDS_METADATA, handler) as unknown[] | undefined) ?? [];
    if (bound.includes(IdempotencyGuard)) continue;
    const descriptor = descriptorOf(controller.prototype as object, name);
    if (!descriptor) continue;
    UseGuards(IdempotencyGuard)(controller.prototype as object, name, descriptor);
    UseFilters(IdempotentReplayFilter)(controller.prototype as object, name, descriptor);
  }
}

/** Every POST handler of the controllers of `root` and of the modules it imports, at any depth. */
export function postHandlers(root: Type): PostHandler[] {
  const handlers: PostHandler[] = [];
  for (const controller of controllersOf(root)) {
    for (let prototype = controller.prototype as object | null; prototype && prototype !== Object.prototype; prototype = Object.getPrototypeOf(prototype) as object | null) {
      for (const name of Object.getOwnPropertyNames(prototype)) {
        const handler = Object.getOwnPropertyDescriptor(prototype, name)?.value as object | undefined;
        if (name === 'constructor' || typeof handler !== 'function') continue;
        if (Reflect.getMetadata(METHOD_METADATA, handler) !== RequestMethod.POST) continue;
        if (!handlers.some((known) => known.controller === controller && known.name === name)) handlers.push({ controller, name, handler });
      }
    }
  }
  return handlers;
}

type ModuleEntry = Type | { module?: Type; imports?: unknown[]; controllers?: Type[]; forwardRef?: () => unknown } | undefined;

function controllersOf(root: Type): Set<Type> {
  const controllers = new Set<Type>();
  const seen = new Set<unknown>();
  const visit = (entry: ModuleEntry): void => {
    if (!entry || seen.has(entry)) return;
    seen.add(entry);
    if (typeof entry === 'object' && entry.forwardRef) return visit(entry.forwardRef() as ModuleEntry);
    // A module class, or a dynamic module ({ module, imports, controllers }); a promised one holds none.
    const moduleClass = typeof entry === 'function' ? entry : entry.module;
    if (moduleClass) {
      for (const controller of (Reflect.getMetadata(MODULE_METADATA.CONTROLLERS, moduleClass) as Type[] | undefined) ?? []) controllers.add(controller);
      for (const imported of (Reflect.getMetadata(MODULE_METADATA.IMPORTS, moduleClass) as ModuleEntry[] | undefined) ?? []) visit(imported);
    }
    if (typeof entry === 'object') {
      for (const controller of entry.controllers ?? []) controllers.add(controller);
      for (const imported of (entry.imports ?? []) as ModuleEntry[]) visit(imported);
    }
  };
  visit(root);
  return controllers;
}

/** The method's property descriptor on the prototype chain (an inherited handler is decorated where it is defined). */
function descriptorOf(prototype: object, name: string): PropertyDescriptor | undefined {
  for (let current: object | null = prototype; current && current !== Object.prototype; current = Object.getPrototypeOf(current) as object | null) {
    const descriptor = Object.getOwnPropertyDescriptor(current, name);
    if (descriptor) return descriptor;
  }
  return undefined;
}
