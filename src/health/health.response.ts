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
