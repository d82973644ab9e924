import { Access, type AccessPolicy } from '../access/policy/access-policy';
import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService, MongooseHealthIndicator } from '@nestjs/terminus';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { JobRunner, type JobStatus } from '../jobs/job-runner';
import { HealthResponse, JobStatusResponse, LivenessResponse, ReadinessResponse } from './health.response';
import { Readiness, ReadinessState } from './readiness.service';

const NOT_READY: Record<Exclude<ReadinessState, 'ready'>, string> = {
  'building-indexes': 'Not ready: indexes are still being built',
  'index-build-failed': 'Not ready: the index build failed',
  'shutting-down': 'Not ready: shutting down',
};

/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const OPEN_TO_ANYONE: AccessPolicy = {
  credentials: ['anyone'],
  scope: 'none',
};

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly mongoose: MongooseHealthIndicator,
    private readonly indicators: HealthIndicatorService,
    private readonly lifecycle: Readiness,
    private readonly jobs: JobRunner,
  ) {}

  @Access(OPEN_TO_ANYONE)
  @Get()
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOperation({ summary: "Liveness, database reachability and this instance's periodic jobs" })
  @ApiOkResponse({ type: HealthResponse })
  @ApiErrorResponses(500, 503)
  async checkHealth() {
    try {
      const checked = await this.health.check([() => this.mongoose.pingCheck('database', { timeout: 1_500 })]);
      return { ...checked, jobs: this.jobs.statuses().map(toJobStatusResponse) };
    } catch (error) {
      // Terminus reports through an exception whose body is its own report; callers get the service's error body.
      if (error instanceof ServiceUnavailableException)
        throw new ServiceUnavailableException('Database unavailable, try again shortly');
      throw error;
    }
  }

  @Access(OPEN_TO_ANYONE)
  @Get('live')
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  @ApiOperation({
    summary: 'Liveness: the process runs and answers',
    description: 'Touches no database: an orchestrator restarts the instance only when this fails.',
  })
  @ApiOkResponse({ type: LivenessResponse })
  @ApiErrorResponses(500)
  checkLiveness(): LivenessResponse {
    return { status: 'ok' };
  }

  @Access(OPEN_TO_ANYONE)
  @Get('ready')
  @HealthCheck({ noCache: true, swaggerDocumentation: false })
  @ApiOperation({
    summary: 'Readiness: the database answers a ping and every index is built',
    description:
      '`503` while indexes are being built at start-up, while the database is unreachable, and while shutting down.',
  })
  @ApiOkResponse({ type: ReadinessResponse })
  @ApiErrorResponses(500, 503)
  async checkReadiness() {
    try {
      return await this.health.check([
        () => this.mongoose.pingCheck('database', { timeout: 1_500 }),
        () => this.indexes(),
      ]);
    } catch (error) {
      if (error instanceof ServiceUnavailableException) {
        const state = this.lifecycle.state;
        throw new ServiceUnavailableException(state === 'ready' ? 'Not ready: database unavailable' : NOT_READY[state]);
      }
      throw error;
    }
  }

  private indexes() {
    const indicator = this.indicators.check('indexes');
    return this.lifecycle.state === 'ready'
      ? indicator.up({ models: this.lifecycle.models })
      : indicator.down({ message: this.lifecycle.state });
  }
}

function toJobStatusResponse(job: JobStatus): JobStatusResponse {
  return {
    name: job.name,
    everyMs: job.everyMs,
    leased: job.leased,
    running: job.running,
    lastStartedAt: job.lastStartedAt?.toISOString() ?? null,
    lastEndedAt: job.lastEndedAt?.toISOString() ?? null,
    lastError: job.lastError && { at: job.lastError.at.toISOString() },
    failures: job.failures,
    heldElsewhere: job.heldElsewhere,
  };
}
