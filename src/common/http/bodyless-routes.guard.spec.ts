import { Body, Controller, Param, Patch, Post, Query, Req, createParamDecorator } from '@nestjs/common';
import { ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { takesBody } from './bodyless-routes.guard';

const Custom = createParamDecorator(() => 'x');

@Controller('things')
class ThingsController {
  @Post()
  create(@Body() _body: unknown, @Custom() _custom: string): void {}
  @Patch(':id/restore')
  restore(@Param('id') _id: string, @Query('q') _q: string, @Custom() _custom: string): void {}
  @Post(':id/raw')
  raw(@Req() _request: unknown): void {}
  @Post('ping')
  ping(): void {}
}

const argsOf = (method: keyof ThingsController) =>
  Reflect.getMetadata(ROUTE_ARGS_METADATA, ThingsController, method) as object | undefined;

describe("takesBody, on this Nest's record of a handler's parameters", () => {
  it('reads @Body and @Req as taking the body, and @Param, @Query and custom decorators as not', () => {
    expect(takesBody(argsOf('create'), 2)).toBe(true);
    expect(takesBody(argsOf('restore'), 3)).toBe(false);
    expect(takesBody(argsOf('raw'), 1)).toBe(true);
    expect(takesBody(argsOf('ping'), 0)).toBe(false);
  });

  it('counts a record in another form as taking the body, so nothing is refused', () => {
    expect(takesBody({ 'body@0': {} }, 1)).toBe(true);
    expect(takesBody(undefined, 1)).toBe(true);
  });
});
