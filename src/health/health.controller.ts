import { Controller, Get } from '@nestjs/common';
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
  check() {
    return this.health.check([() => this.mongoose.pingCheck('database', { timeout: 1_500 })]);
  }
}
