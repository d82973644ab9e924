import { ApiProperty } from '@nestjs/swagger';
import { GRANT_ROLES } from '../grant.schema';

export class GrantView {
  @ApiProperty({ example: '6650c0ffee0000000000e101' })
  id: string;

  @ApiProperty({
    example: '6650c0ffee0000000000d001',
    description: 'The content project the grant opens, with its sub-projects',
  })
  projectId: string;

  @ApiProperty({
    type: String,
    nullable: true,
    example: '6650c0ffee0000000000a001',
    description: 'The user granted; null for a grant to an email',
  })
  userId: string | null;

  @ApiProperty({
    type: String,
    nullable: true,
    example: null,
    description: 'The address granted (lower-case); null for a grant to a user',
  })
  email: string | null;

  @ApiProperty({ enum: GRANT_ROLES, example: 'viewer' })
  role: string;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    example: 3,
    description: "Successful viewer reads of an asset's bytes through the grant",
  })
  views: number;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'When the grant ends; null: never' })
  expiresAt: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  revokedAt: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}
