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

  @ApiPropertyOptional({
    description:
      'Why, for a client to act on: `mfa_required` (set up or use a second factor), `step_up_required` (prove it again), `email_unverified` (verify the email first), ' +
      "`channel_role_required` (a channel role the caller lacks, named in `message`), `last_channel_owner` (make another collaborator the channel's owner first)",
    example: 'step_up_required',
  })
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
