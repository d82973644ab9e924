import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class FieldErrorDto {
  @ApiProperty({ example: 'email', description: 'Path of the offending field (dots for nesting)' })
  field: string;

  @ApiProperty({ type: [String], example: ['email must be an email'] })
  messages: string[];
}

/** The one error body of the service, for every status. */
export class ErrorResponseDto {
  @ApiProperty({ example: 404 })
  statusCode: number;

  @ApiProperty({ example: 'Not Found' })
  error: string;

  @ApiProperty({ example: 'Channel not found' })
  message: string;

  @ApiPropertyOptional({ type: [FieldErrorDto], description: 'Present on validation failures' })
  errors?: FieldErrorDto[];

  @ApiPropertyOptional({ example: 'email_unverified', description: 'A machine-readable reason, where the status alone is ambiguous' })
  code?: string;
}

export class MessageResponseDto {
  @ApiProperty({ example: 'Done' })
  message: string;
}

export class MessageWithIdResponseDto {
  @ApiProperty({ example: 'Created' })
  message: string;

  @ApiProperty({ example: '6650c0ffee0000000000a001', pattern: '^[0-9a-f]{24}$' })
  id: string;
}
