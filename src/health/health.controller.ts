import { Controller, Get, ServiceUnavailableException } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, MongooseHealthIndicator } from '@nestjs/terminus';
import { Public } from '../common/decorators/public.decorator';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import { HealthResponse } from './health.response';

@ApiTags('operations')
@Controller('health')
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly mongoose: MongooseHealthIndicator,
  ) {}

  @Public()
  @Get()
  @HealthCheck({ swaggerDocumentation: false })
  @ApiOperation({ summary: 'Liveness and database reachability' })
  @ApiOkResponse({ type: HealthResponse })
  @ApiErrorResponses(500, 503)
  async check() {
    try {
      return await this.health.check([() => this.mongoose.pingCheck('database', { timeout: 1_500 })]);
    } catch (error) {
      // Terminus reports through an exception whose body is its own report; callers get the service's error body.
      if (error instanceof ServiceUnavailableException) throw new ServiceUnavailableException('Database unavailable, try again shortly');
      throw error;
    }
  }
}
