import { Injectable, type OnModuleInit, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ACCESS, type AccessPolicy } from './policy/access-policy';

/**
 * Deny by default, checked before the first request: every route of every controller declares its
 * access policy (`@Access()`), or the application does not start, and the error names the route. A
 * route added without one would otherwise be decided by whatever the guard assumes.
 */
@Injectable()
export class RouteDeclarations implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
  ) {}

  onModuleInit(): void {
    const undeclared = this.routes()
      .filter((route) => !route.policy)
      .map((route) => route.name);
    if (undeclared.length) throw new Error(`Routes without an access policy (@Access): ${undeclared.join(', ')}`);
  }

  /** Every route handler of the application, named `Controller.handler (METHOD /path)`, with its policy. */
  routes(): { name: string; policy: AccessPolicy | undefined }[] {
    return this.discovery.getControllers().flatMap((wrapper): { name: string; policy: AccessPolicy | undefined }[] => {
      const instance = wrapper.instance as object | undefined;
      if (!instance || !wrapper.metatype) return [];
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      const prefix = String(this.reflector.get<string>(PATH_METADATA, wrapper.metatype) ?? '');
      return this.scanner.getAllMethodNames(prototype).flatMap((method) => {
        const handler = prototype[method] as (...args: unknown[]) => unknown;
        const path = this.reflector.get<string | string[] | undefined>(PATH_METADATA, handler);
        if (path === undefined) return [];
        const verb: string =
          RequestMethod[
            (this.reflector.get<RequestMethod | undefined>(METHOD_METADATA, handler) ??
              RequestMethod.GET) as RequestMethod
          ];
        const name = `${wrapper.metatype!.name}.${method} (${verb} /${[prefix, String(path)].filter(Boolean).join('/')})`;
        return [{ name, policy: this.reflector.get<AccessPolicy | undefined>(ACCESS, handler) }];
      });
    });
  }
}
