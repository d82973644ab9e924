import { Controller, Get, Module, Post } from '@nestjs/common';
import { DiscoveryModule, NestFactory } from '@nestjs/core';
import { Access } from './policy/access-policy';
import { RouteDeclarations } from './route-declarations';

@Controller('declared')
class DeclaredController {
  @Access({ credentials: ['anyone'], scope: 'none' })
  @Get()
  read(): string {
    return 'ok';
  }
}

@Controller('forgotten')
class ForgottenController {
  @Access({ credentials: ['userToken', 'session'], scope: 'user', assurance: 'password' })
  @Get()
  read(): string {
    return 'ok';
  }

  @Post(':id')
  change(): string {
    return 'changed';
  }
}

@Module({ imports: [DiscoveryModule], controllers: [DeclaredController], providers: [RouteDeclarations] })
class Declared {}

@Module({
  imports: [DiscoveryModule],
  controllers: [DeclaredController, ForgottenController],
  providers: [RouteDeclarations],
})
class Forgotten {}

describe('RouteDeclarations', () => {
  it('lets an application whose every route declares a policy start', async () => {
    const app = await NestFactory.createApplicationContext(Declared, { logger: false });
    await app.close();
  });

  it('stops the start at a route without a policy, naming it', async () => {
    await expect(
      NestFactory.createApplicationContext(Forgotten, { logger: false, abortOnError: false }),
    ).rejects.toThrow('Routes without an access policy (@Access): ForgottenController.change (POST /forgotten/:id)');
  });
});
