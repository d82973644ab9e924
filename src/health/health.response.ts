import { ApiProperty } from '@nestjs/swagger';

export class HealthResponse {
  @ApiProperty({ example: 'ok', enum: ['ok'] })
  status: string;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { database: { status: 'up' } } })
  info: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: true, example: {} })
  error: Record<string, unknown>;

  @ApiProperty({ type: 'object', additionalProperties: true, example: { database: { status: 'up' } } })
  details: Record<string, unknown>;
}

export class LivenessResponse {
  @ApiProperty({ example: 'ok', enum: ['ok'] })
  status: string;
}

export class ReadinessResponse extends HealthResponse {
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
