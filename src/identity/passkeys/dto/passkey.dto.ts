import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  Equals,
  IsArray,
  IsIn,
  IsInt,
  IsMongoId,
  IsObject,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { OBJECT_ID_PATTERN } from '../../../common/pipes/object-id';
import { IsOptionalNotNull } from '../../../common/validators/is-optional-not-null';
import { NotBlankText } from '../../../common/validators/trimmed-text';

const BASE64URL = /^[A-Za-z0-9_-]*$/;
const BASE64URL_PATTERN = '^[A-Za-z0-9_-]*$';
/** Far above any real authenticator's answer (an attestation with a certificate chain is a few KB). */
const FIELD_MAX = 16_384;
const ID_MAX = 1_368;
const NAME_MAX = 64;
const TRANSPORTS = ['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'] as const;

/**
 * Client data as a browser writes it, with a challenge this service never issued: only a real
 * authenticator's answer to the service's own options is accepted, so an example can show the form only.
 */
const CREATE_CLIENT_DATA =
  'eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiVG05MElHRWdZMmhoYkd4bGJtZGxJRzltSUhSb2FYTWdjMlZ5ZG1salpRIiwib3JpZ2luIjoiaHR0cDovL2xvY2FsaG9zdDozMDAwIiwiY3Jvc3NPcmlnaW4iOmZhbHNlfQ';
const GET_CLIENT_DATA =
  'eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiVG05MElHRWdZMmhoYkd4bGJtZGxJRzltSUhSb2FYTWdjMlZ5ZG1salpRIiwib3JpZ2luIjoiaHR0cDovL2xvY2FsaG9zdDozMDAwIiwiY3Jvc3NPcmlnaW4iOmZhbHNlfQ';

function Base64Url(description: string, max = FIELD_MAX, example = 'SGVsbG8gcGFzc2tleQ'): PropertyDecorator {
  return applyDecorators(
    ApiProperty({ description, pattern: BASE64URL_PATTERN, maxLength: max, example }),
    IsString(),
    Matches(BASE64URL, { message: '$property must be base64url' }),
    MaxLength(max),
  );
}

export class AttestationResponseDto {
  @Base64Url('The client data the browser signed over, base64url', FIELD_MAX, CREATE_CLIENT_DATA)
  clientDataJSON: string;

  @Base64Url('The attestation object (CBOR), base64url')
  attestationObject: string;

  @ApiPropertyOptional({
    description: 'The authenticator data, base64url',
    pattern: BASE64URL_PATTERN,
    maxLength: FIELD_MAX,
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(BASE64URL, { message: '$property must be base64url' })
  @MaxLength(FIELD_MAX)
  authenticatorData?: string;

  @ApiPropertyOptional({
    type: [String],
    enum: TRANSPORTS,
    example: ['internal', 'hybrid'],
    maxItems: TRANSPORTS.length,
  })
  @IsOptionalNotNull()
  @IsArray()
  @ArrayMaxSize(TRANSPORTS.length)
  @IsIn(TRANSPORTS, { each: true })
  transports?: string[];

  @ApiPropertyOptional({
    type: 'integer',
    format: 'int32',
    minimum: -65536,
    maximum: 65535,
    description: 'The COSE algorithm of the public key',
    example: -7,
  })
  @IsOptionalNotNull()
  @IsInt()
  @Min(-65536)
  @Max(65535)
  publicKeyAlgorithm?: number;

  @ApiPropertyOptional({
    description: 'The public key (SubjectPublicKeyInfo), base64url',
    pattern: BASE64URL_PATTERN,
    maxLength: FIELD_MAX,
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(BASE64URL, { message: '$property must be base64url' })
  @MaxLength(FIELD_MAX)
  publicKey?: string;
}

export class AssertionResponseDto {
  @Base64Url('The client data the browser signed over, base64url', FIELD_MAX, GET_CLIENT_DATA)
  clientDataJSON: string;

  @Base64Url('The authenticator data, base64url')
  authenticatorData: string;

  @Base64Url('The signature, base64url')
  signature: string;

  @ApiPropertyOptional({
    type: String,
    description: 'The user handle of a discoverable passkey, base64url',
    pattern: BASE64URL_PATTERN,
    maxLength: 128,
  })
  @IsOptionalNotNull()
  @IsString()
  @Matches(BASE64URL, { message: '$property must be base64url' })
  @MaxLength(128)
  userHandle?: string;
}

/** What `navigator.credentials` answered, as `@simplewebauthn/browser` (or `PublicKeyCredential.toJSON()`) serialises it. */
abstract class CredentialDto {
  @Base64Url('The credential id, base64url', ID_MAX)
  id: string;

  @Base64Url('The same id, base64url', ID_MAX)
  rawId: string;

  @ApiProperty({ enum: ['public-key'], example: 'public-key' })
  @Equals('public-key', { message: "type must be 'public-key'" })
  type: 'public-key';

  @ApiPropertyOptional({ enum: ['platform', 'cross-platform'], example: 'platform' })
  @IsOptionalNotNull()
  @IsIn(['platform', 'cross-platform'])
  authenticatorAttachment?: 'platform' | 'cross-platform';

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description: 'The extensions results (`{}` when none)',
    example: {},
  })
  @IsObject()
  clientExtensionResults: Record<string, unknown>;
}

export class RegistrationCredentialDto extends CredentialDto {
  @ApiProperty({ type: AttestationResponseDto })
  @IsObject()
  @ValidateNested()
  @Type(() => AttestationResponseDto)
  response: AttestationResponseDto;
}

export class AuthenticationCredentialDto extends CredentialDto {
  @ApiProperty({ type: AssertionResponseDto })
  @IsObject()
  @ValidateNested()
  @Type(() => AssertionResponseDto)
  response: AssertionResponseDto;
}

export class RegisterPasskeyDto {
  @NotBlankText(NAME_MAX, 'Work laptop')
  name: string;

  @ApiProperty({
    type: RegistrationCredentialDto,
    description: 'The answer of `navigator.credentials.create()` to the registration options',
  })
  @IsObject()
  @ValidateNested()
  @Type(() => RegistrationCredentialDto)
  credential: RegistrationCredentialDto;
}

export class RenamePasskeyDto {
  @NotBlankText(NAME_MAX, 'Phone')
  name: string;
}

export class PasskeyAssertionDto {
  @ApiProperty({
    type: AuthenticationCredentialDto,
    description: 'The answer of `navigator.credentials.get()` to the authentication options',
  })
  @IsObject()
  @ValidateNested()
  @Type(() => AuthenticationCredentialDto)
  credential: AuthenticationCredentialDto;
}

export class PasskeySignInDto extends PasskeyAssertionDto {
  @ApiPropertyOptional({
    description: 'The account to act in (a member only); default: as a password sign-in',
    example: '665f1f77bcf86cd799439011',
    pattern: OBJECT_ID_PATTERN,
  })
  @IsOptionalNotNull()
  @IsMongoId({ message: 'accountId must be a valid id' })
  accountId?: string;
}
