import { SetMetadata, type ExecutionContext, type Type } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { RouteMetadata } from './route-metadata';

const KEY = 'route-metadata.spec';

@SetMetadata(KEY, 'controller')
class Parent {
  inherited(): void {}

  @SetMetadata(KEY, 'handler')
  own(): void {}
}

@SetMetadata(KEY, 'child controller')
class Child extends Parent {}

class Bare {
  plain(): void {}
}

function contextOf(controller: Type, handler: (...args: never[]) => unknown): ExecutionContext {
  return { getClass: () => controller, getHandler: () => handler } as unknown as ExecutionContext;
}

describe('RouteMetadata', () => {
  it("answers as Reflector.getAllAndOverride: the handler's value first, else its controller's, else undefined", () => {
    const metadata = new RouteMetadata<string>(new Reflector(), KEY);
    expect(metadata.of(contextOf(Parent, Parent.prototype.own))).toBe('handler');
    expect(metadata.of(contextOf(Parent, Parent.prototype.inherited))).toBe('controller');
    expect(metadata.of(contextOf(Bare, Bare.prototype.plain))).toBeUndefined();
  });

  it('tells apart one handler inherited by two controllers', () => {
    const metadata = new RouteMetadata<string>(new Reflector(), KEY);
    expect(metadata.of(contextOf(Parent, Parent.prototype.inherited))).toBe('controller');
    expect(metadata.of(contextOf(Child, Child.prototype.inherited))).toBe('child controller');
    expect(metadata.of(contextOf(Parent, Parent.prototype.inherited))).toBe('controller');
  });

  it('reads each route once, an absent value included', () => {
    const reflector = new Reflector();
    const read = jest.spyOn(reflector, 'getAllAndOverride');
    const metadata = new RouteMetadata<string>(reflector, KEY);
    for (let i = 0; i < 3; i += 1) {
      metadata.of(contextOf(Parent, Parent.prototype.own));
      metadata.of(contextOf(Bare, Bare.prototype.plain));
    }
    expect(read).toHaveBeenCalledTimes(2);
  });
});
