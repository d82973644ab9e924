import { ApiProperty } from '@nestjs/swagger';

/** A share link as lists show it: never its token. */
export class ShareLinkView {
  @ApiProperty({ example: '6650c0ffee0000000000e001' })
  id: string;

  @ApiProperty({
    example: '6650c0ffee0000000000d001',
    description: 'The content project the link shows, with its sub-projects',
  })
  projectId: string;

  @ApiProperty({ example: 'shr_Xb3qN0vJ', description: 'The first 12 characters of the token' })
  start: string;

  @ApiProperty({
    example: '/viewer/projects/6650c0ffee0000000000d001',
    description: 'Where a viewer reads the project, relative to this service, sending the token in `X-Share-Token`',
  })
  url: string;

  @ApiProperty({ description: 'Whether viewers must send `X-Share-Password`' })
  hasPassword: boolean;

  @ApiProperty({
    type: 'integer',
    format: 'int32',
    minimum: 0,
    example: 3,
    description: 'Successful viewer reads through the link',
  })
  views: number;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When the link stops working; null: never',
  })
  expiresAt: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  revokedAt: string | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;
}

/** A link just made: the only answer that carries its token. */
export class CreatedShareLinkView extends ShareLinkView {
  @ApiProperty({
    example: 'shr_Xb3qN0vJm2c5Rz8TkYw1aHd7LpQe4Ui9So6Fg0Bn2Ct',
    pattern: '^shr_[A-Za-z0-9_-]{43}$',
    description: 'The token: shown once, in this answer only. Viewers send it in `X-Share-Token`.',
  })
  token: string;
}
