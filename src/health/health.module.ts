import { Module } from '@nestjs/common';
import { TerminusModule } from '@nestjs/terminus';
import { HealthController } from './health.controller';
import { Readiness } from './readiness.service';

/**
 * Health routes for orchestrators: `/health/live` (the process runs), `/health/ready` (the database
 * answers and every index is built; not ready again from SIGTERM on) and `/health`. It holds no
 * data, and keeps no invariant beyond answering `503` whenever a request would fail for the
 * database.
 */
@Module({
  imports: [TerminusModule.forRoot({ logger: false })],
  controllers: [HealthController],
  providers: [Readiness],
  exports: [Readiness],
})
export class HealthModule {}
