import { ApiProperty } from '@nestjs/swagger';

/** What every health check answers (terminus's report). */
class HealthCheckBody {
  @ApiProperty({ example: 'ok', enum: ['ok'] })
  status: string;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { database: { status: 'up' } } })
  info: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: true, example: {} })
  error: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { database: { status: 'up' } } })
  details: Record<string, unknown>;
}

/**
 * When the last step failed. Its cause stays in the service's log: the health answer is anonymous, and
 * an error's text can carry what the error filter never lets out (driver messages, hosts).
 */
export class JobErrorResponse {
  @ApiProperty({ example: '2026-01-01T00:00:00.000Z', format: 'date-time' })
  at: string;
}

/** One periodic job as this instance runs it. */
export class JobStatusResponse {
  @ApiProperty({ example: 'events.sweep' })
  name: string;

  @ApiProperty({ example: 15000, description: 'How often a step starts, in milliseconds' })
  everyMs: number;

  @ApiProperty({ description: 'Whether it runs on one instance at a time, under a lease' })
  leased: boolean;

  @ApiProperty({ description: 'Whether a step runs on this instance now' })
  running: boolean;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the last step on this instance started',
  })
  lastStartedAt: string | null;

  @ApiProperty({
    type: String,
    format: 'date-time',
    nullable: true,
    description: 'When the last step on this instance ended',
  })
  lastEndedAt: string | null;

  @ApiProperty({ type: JobErrorResponse, nullable: true, description: "The last step's error, until a step succeeds" })
  lastError: JobErrorResponse | null;

  @ApiProperty({ example: 0, description: 'Failed steps in a row; the next is tried after a backoff' })
  failures: number;

  @ApiProperty({ example: 0, description: "Steps skipped because another instance held the job's lease" })
  heldElsewhere: number;
}

export class HealthResponse extends HealthCheckBody {
  @ApiProperty({ type: [JobStatusResponse], description: "This instance's periodic jobs" })
  jobs: JobStatusResponse[];
}

export class LivenessResponse {
  @ApiProperty({ example: 'ok', enum: ['ok'] })
  status: string;
}

export class ReadinessResponse extends HealthCheckBody {
  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { database: { status: 'up' }, indexes: { status: 'up', models: 14 } },
  })
  declare info: Record<string, unknown>;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    example: { database: { status: 'up' }, indexes: { status: 'up', models: 14 } },
  })
  declare details: Record<string, unknown>;
}
