import { DynamicModule, Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { APP_FILTER, APP_GUARD, APP_PIPE } from '@nestjs/core';
import { LoggerModule } from 'nestjs-pino';
import { AccessModule } from './access/access.module';
import { AccountsModule } from './accounts/accounts.module';
import { AuthModule } from './auth/auth.module';
import { AccessGuard } from './access/access.guard';
import { InvitationsModule } from './invitations/invitations.module';
import { MigrationsModule } from './migrations/migrations.module';
import { PlatformProjectsModule } from './platform-projects/platform-projects.module';
import { AllExceptionsFilter } from './common/filters/all-exceptions.filter';
import { IdempotencyModule } from './idempotency/idempotency.module';
import { logDestination } from './common/logging/app-logger';
import { BodylessRoutesGuard } from './common/http/bodyless-routes.guard';
import { createValidationPipe } from './common/pipes/validation.pipe';
import { appConfig, AppConfig } from './config/app.config';
import { authConfig } from './config/auth.config';
import { sessionsConfig } from './config/sessions.config';
import { passkeysConfig } from './config/passkeys.config';
import { databaseConfig } from './config/database.config';
import { financeConfig } from './config/finance.config';
import { eventsConfig } from './config/events.config';
import { rateLimitsConfig } from './config/rate-limits.config';
import { assetsConfig } from './config/assets.config';
import { mailConfig } from './config/mail.config';
import { searchConfig } from './config/search.config';
import { MailModule } from './mail/mail.module';
import type { EnvironmentVariables } from './config/env.validation';
import { configModule } from './config/namespace';
import { loggedUrl } from './common/logging/logged-url';
import { RateLimitsModule } from './rate-limits/rate-limits.module';
import { EventsModule } from './events/events.module';
import { InProcessEventsModule } from './in-process-events/in-process-events.module';
import { AuditModule } from './audit/audit.module';
import { DatabaseModule } from './database/database.module';
import { HealthModule } from './health/health.module';
import { JobsModule } from './jobs/jobs.module';
import { ChannelsModule } from './channels/channels.module';
import { ProjectsModule } from './projects/projects.module';
import { CollaboratorsModule } from './collaborators/collaborators.module';
import { AssetsModule } from './assets/assets.module';
import { SharingModule } from './sharing/sharing.module';
import { ClientsModule } from './clients/clients.module';
import { CollectionsModule } from './collections/collections.module';
import { CustomersModule } from './customers/customers.module';
import { CardsModule } from './cards/cards.module';
import { PaymentsModule } from './payments/payments.module';
import { SearchModule } from './search/search.module';
import { WebhooksModule } from './webhooks/webhooks.module';
import { SearchHistoryModule } from './search-history/search-history.module';

/**
 * The whole application: every module, and the one global guard (src/access/access.guard.ts), which
 * holds every request to its route's declared access policy: authentication (who), tenancy (in which
 * account and platform project), the rate limit, the role, and a verified email where the policy asks
 * for one. A route runs only after it lets it through, so no controller checks who is calling or
 * where it acts.
 */
@Module({
  imports: [
    LoggerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService) => {
        const app = config.getOrThrow<AppConfig>('app');
        return {
          // No Nest middleware: requests are logged, and run in the logging context, from two Fastify
          // hooks (installRequestLogging in app.factory.ts), which cost less than nestjs-pino's
          // middleware did when measured (bench/README.md, "Patches of dependencies"). The root
          // logger is made from these options.
          forRoutes: [],
          pinoHttp: [
            {
              level: app.logLevel,
              // The serializers are what keeps headers (tokens, keys, cookies) out of the logs: a request
              // or a response logged under req or res shows these fields and nothing else. (A redact
              // list of header paths matched nothing past them, and cost allocations on every request.)
              serializers: {
                req: (request: { id: string; method: string; url: string }) => ({
                  id: request.id,
                  method: request.method,
                  url: loggedUrl(request.url),
                }),
                res: (response: { statusCode: number }) => ({ statusCode: response.statusCode }),
              },
            },
            // Stdout: JSON lines in batches written off the request's path, or pretty at a terminal in development.
            logDestination(app.nodeEnv),
          ],
        };
      },
    }),
    InProcessEventsModule,
    DatabaseModule,
    JobsModule,
    MailModule,
    EventsModule,
    AuditModule,
    RateLimitsModule,
    HealthModule,
    AuthModule,
    AccessModule,
    AccountsModule,
    InvitationsModule,
    PlatformProjectsModule,
    ChannelsModule,
    CollaboratorsModule,
    ProjectsModule,
    AssetsModule,
    SharingModule,
    CollectionsModule,
    ClientsModule,
    CustomersModule,
    CardsModule,
    PaymentsModule,
    SearchModule,
    WebhooksModule,
    SearchHistoryModule,
    IdempotencyModule,
    MigrationsModule,
  ],
  providers: [
    // Each route's declared policy: who is calling, where the request acts, how often they may, their role, a verified email.
    { provide: APP_GUARD, useExisting: AccessGuard },
    // After it, so a caller who may not call the route hears that first: a body on a route that takes none is a 400.
    { provide: APP_GUARD, useClass: BodylessRoutesGuard },
    { provide: APP_PIPE, useFactory: createValidationPipe },
    { provide: APP_FILTER, useClass: AllExceptionsFilter },
  ],
})
export class AppModule {
  /** The application configured by one validated environment (loadEnvironment() or validateEnvironment()). */
  static forEnvironment(env: EnvironmentVariables): DynamicModule {
    return {
      module: AppModule,
      imports: [
        configModule(env, [
          appConfig,
          authConfig,
          databaseConfig,
          financeConfig,
          eventsConfig,
          rateLimitsConfig,
          sessionsConfig,
          passkeysConfig,
          assetsConfig,
          mailConfig,
          searchConfig,
        ]),
      ],
    };
  }
}
