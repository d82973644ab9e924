import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';

export class PasskeyView {
  @ApiProperty({ example: '665f1f77bcf86cd799439011' })
  id: string;

  @ApiProperty({ example: 'Work laptop' })
  name: string;

  @ApiProperty({
    description:
      'A passkey synced between devices (a password manager, a platform account), not bound to one authenticator',
  })
  synced: boolean;

  @ApiProperty({ format: 'date-time' })
  createdAt: string;

  @ApiProperty({
    type: String,
    nullable: true,
    format: 'date-time',
    description: 'The last sign-in or step-up with it',
  })
  lastUsedAt: string | null;
}

export class PasskeyEnvelope {
  @ApiProperty({ type: PasskeyView })
  data: PasskeyView;
}

export class PasskeyListResponse {
  @ApiProperty({ type: [PasskeyView] })
  data: PasskeyView[];
}

class RelyingParty {
  @ApiProperty({ example: 'Platform' })
  name: string;

  @ApiProperty({ example: 'example.com' })
  id: string;
}

class CredentialUser {
  @ApiProperty({ description: 'The user handle, base64url', example: 'ZlAM_-4AAAAAAKAB' })
  id: string;

  @ApiProperty({ example: 'ada@example.com' })
  name: string;

  @ApiProperty({ example: 'ada@example.com' })
  displayName: string;
}

class CredentialParameter {
  @ApiProperty({ type: 'integer', description: 'A COSE algorithm', example: -7 })
  alg: number;

  @ApiProperty({ enum: ['public-key'] })
  type: string;
}

class CredentialDescriptor {
  @ApiProperty({ description: 'A credential id, base64url' })
  id: string;

  @ApiProperty({ enum: ['public-key'] })
  type: string;

  @ApiPropertyOptional({ type: [String], example: ['internal'] })
  transports?: string[];
}

class AuthenticatorSelection {
  @ApiPropertyOptional({ enum: ['required', 'preferred', 'discouraged'], example: 'required' })
  residentKey?: string;

  @ApiPropertyOptional()
  requireResidentKey?: boolean;

  @ApiPropertyOptional({ enum: ['required', 'preferred', 'discouraged'], example: 'required' })
  userVerification?: string;
}

export class PasskeyRegistrationOptions {
  @ApiProperty({ description: 'Single use, for a limited time; base64url' })
  challenge: string;

  @ApiProperty({ type: RelyingParty })
  rp: RelyingParty;

  @ApiProperty({ type: CredentialUser })
  user: CredentialUser;

  @ApiProperty({ type: [CredentialParameter] })
  pubKeyCredParams: CredentialParameter[];

  @ApiPropertyOptional({ type: 'integer', description: 'Milliseconds', example: 120000 })
  timeout?: number;

  @ApiPropertyOptional({
    type: [CredentialDescriptor],
    description: "The user's passkeys already registered (not to register twice)",
  })
  excludeCredentials?: CredentialDescriptor[];

  @ApiPropertyOptional({ type: AuthenticatorSelection })
  authenticatorSelection?: AuthenticatorSelection;

  @ApiPropertyOptional({ example: 'none' })
  attestation?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  extensions?: Record<string, unknown>;
}

export class PasskeyAuthenticationOptions {
  @ApiProperty({ description: 'Single use, for a limited time; base64url' })
  challenge: string;

  @ApiPropertyOptional({ example: 'example.com' })
  rpId?: string;

  @ApiPropertyOptional({ type: 'integer', description: 'Milliseconds', example: 120000 })
  timeout?: number;

  @ApiPropertyOptional({
    type: [CredentialDescriptor],
    description: 'Empty: any passkey of this service the authenticator holds',
  })
  allowCredentials?: CredentialDescriptor[];

  @ApiPropertyOptional({ enum: ['required', 'preferred', 'discouraged'], example: 'required' })
  userVerification?: string;

  @ApiPropertyOptional({ type: 'object', additionalProperties: true })
  extensions?: Record<string, unknown>;
}
