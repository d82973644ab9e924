import { ApiProperty } from '@nestjs/swagger';
import { API_NAMES, type ApiName } from '../../tenancy/api-names';
import { API_KEY_KINDS, type ApiKeyKind } from '../api-key-secret';

/** An API key as lists show it: never the key itself, only its first 12 characters. */
export class ApiKeyView {
  @ApiProperty({ example: '6650c0ffee0000000000b001' })
  id: string;

  @ApiProperty({ example: 'Checkout server' })
  name: string;

  @ApiProperty({
    enum: API_KEY_KINDS,
    example: 'secret',
    description:
      'secret (`sk_test_...`): the data APIs of its project; publishable (`pk_test_...`): the read-only `/viewer` routes only, safe to ship in an app',
  })
  kind: ApiKeyKind;

  @ApiProperty({ example: 'sk_test_Xb3q', description: 'The first 12 characters of the key' })
  start: string;

  @ApiProperty({
    type: [String],
    enum: API_NAMES,
    nullable: true,
    example: ['customers', 'cards', 'payments'],
    description: 'The APIs the key may call; null: every API its project enables',
  })
  scopes: ApiName[] | null;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({
    format: 'date-time',
    nullable: true,
    type: String,
    description: 'When the key stops working; null: never',
  })
  expiresAt: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String })
  revokedAt: string | null;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Updated at most once a minute' })
  lastUsedAt: string | null;
}

/** A key just made: the only answer that carries the key itself. */
export class CreatedApiKeyView extends ApiKeyView {
  @ApiProperty({
    example: 'sk_test_Xb3qN0vJm2c5Rz8TkYw1aHd7LpQe4Ui9So6Fg0Bn2Ct',
    pattern: '^[sp]k_test_[A-Za-z0-9_-]{43}$',
    description:
      'The key (`sk_test_...` or, publishable, `pk_test_...`): shown once, in this answer only. Send it as `Authorization: Bearer <key>`.',
  })
  key: string;
}

export class CreatedApiKeyEnvelope {
  @ApiProperty({ type: CreatedApiKeyView })
  data: CreatedApiKeyView;
}

export class ApiKeyListResponse {
  @ApiProperty({ type: [ApiKeyView] })
  data: ApiKeyView[];
}
