import { Access, type AccessPolicy } from '../access/policy/access-policy';
import { Audit } from '../audit/audit-context.decorator';
import type { AuditContext } from '../audit/audit-draft';
import { Body, Controller, Delete, Get, Param, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { MessageResponseDto } from '../common/dto/error-response.dto';
import { ParseObjectIdPipe } from '../common/pipes/parse-object-id.pipe';
import { ApiErrorResponses } from '../common/swagger/api-error-responses.decorator';
import type { AccountAccess } from '../tenancy/principal';
import { Account } from '../tenancy/tenancy.decorators';
import { ApiKeysService } from './api-keys.service';
import { ApiKeyListResponse, CreatedApiKeyEnvelope } from './dto/api-key.response';
import { CreateApiKeyDto } from './dto/create-api-key.dto';
import { RollApiKeyDto } from './dto/roll-api-key.dto';
import { Idempotent } from '../idempotency/idempotent.decorator';

/**
 * The API keys of a platform project of the token's account. Admins and the owner, with a user
 * token: an API key is 403 here. A project or key of another account is 404, as an unknown id.
 */
/** The access policy the routes below share; a route that asks more adds it beside its handler. */
const API_KEYS_ACCESS: AccessPolicy = {
  credentials: ['userToken', 'session'],
  scope: 'account',
  assurance: 'accountMfa',
  roles: ['admin'],
};

@ApiTags('api keys')
@Controller('api/v1/platform/projects/:id/keys')
export class ApiKeysController {
  constructor(private readonly keys: ApiKeysService) {}

  @Access({ ...API_KEYS_ACCESS, stepUp: true, verifiedEmail: true })
  @Post()
  // A secret key moves money without its maker's email ever being proved: made only by verified users.
  // A key acts without step-up ever after: making one is itself a step-up action, or it would be the way around one.
  @Idempotent()
  @ApiOperation({
    summary: 'Create an API key',
    description:
      'A step-up action (403 `step_up_required`: a second factor proven within `STEP_UP_MINUTES` when the user has one, else the ' +
      'password). The key (`sk_test_...`) is in this answer only: it is stored as a hash and never shown again. It acts in this project only, ' +
      'with admin rights over the APIs of its `scopes` (default: every API the project enables), and never manages the platform. ' +
      'Scopes must be enabled in the project (400 otherwise).',
  })
  @ApiCreatedResponse({ type: CreatedApiKeyEnvelope })
  @ApiErrorResponses(400, 401, 403, 404, 413, 415, 500, 503)
  async createApiKey(
    @Audit() audit: AuditContext,
    @Account() account: AccountAccess,
    @Param('id', ParseObjectIdPipe) projectId: string,
    @Body() dto: CreateApiKeyDto,
  ): Promise<CreatedApiKeyEnvelope> {
    return { data: await this.keys.create(audit, account.accountId, projectId, dto) };
  }

  @Access(API_KEYS_ACCESS)
  @Get()
  @ApiOperation({
    summary: "List a project's API keys",
    description:
      'Newest first, revoked and expired keys included. Each shows `start` (its first 12 characters), never the key.',
  })
  @ApiOkResponse({ type: ApiKeyListResponse })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async listApiKeys(
    @Account() account: AccountAccess,
    @Param('id', ParseObjectIdPipe) projectId: string,
  ): Promise<ApiKeyListResponse> {
    return { data: await this.keys.list(account.accountId, projectId) };
  }

  @Access({ ...API_KEYS_ACCESS, stepUp: true })
  @Delete(':keyId')
  @ApiOperation({
    summary: 'Revoke an API key',
    description:
      'A step-up action (403 `step_up_required`). The key fails (401) from its next request on, on every instance. Revoking a revoked key answers the same.',
  })
  @ApiOkResponse({ type: MessageResponseDto, example: { message: 'API key revoked' } })
  @ApiErrorResponses(400, 401, 403, 404, 500, 503)
  async revokeApiKey(
    @Audit() audit: AuditContext,
    @Account() account: AccountAccess,
    @Param('id', ParseObjectIdPipe) projectId: string,
    @Param('keyId', ParseObjectIdPipe) keyId: string,
  ): Promise<MessageResponseDto> {
    await this.keys.revoke(audit, account.accountId, projectId, keyId);
    return { message: 'API key revoked' };
  }

  @Access({ ...API_KEYS_ACCESS, stepUp: true })
  @Post(':keyId/roll')
  @Idempotent()
  @ApiOperation({
    summary: 'Roll an API key',
    description:
      'A step-up action (403 `step_up_required`). A new key with the same name, scopes and expiry, shown once. The old key keeps working for `expiresInHours` more ' +
      '(0 to 168, default 0: it stops now), never beyond its own expiry: a roll only ever brings its end forward. ' +
      'A key is rolled once: a key already rolled, revoked or expired cannot be rolled (409).',
  })
  @ApiCreatedResponse({ type: CreatedApiKeyEnvelope })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 415, 500, 503)
  async rollApiKey(
    @Audit() audit: AuditContext,
    @Account() account: AccountAccess,
    @Param('id', ParseObjectIdPipe) projectId: string,
    @Param('keyId', ParseObjectIdPipe) keyId: string,
    @Body() dto: RollApiKeyDto,
  ): Promise<CreatedApiKeyEnvelope> {
    return { data: await this.keys.roll(audit, account.accountId, projectId, keyId, dto.expiresInHours ?? 0) };
  }
}
