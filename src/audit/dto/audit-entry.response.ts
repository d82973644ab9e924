import { ApiProperty } from '@nestjs/swagger';
import { AUDIT_ACTIONS } from '../audit-entry.schema';

export class AuditPartyDto {
  @ApiProperty({ example: 'user', description: 'user or api_key for an actor; the kind of record for a target' })
  type: string;

  @ApiProperty()
  id: string;

  @ApiProperty({
    type: String,
    nullable: true,
    description: "An email or an API key's first 12 characters; never a secret",
  })
  label: string | null;
}

export class AuditEntryResponse {
  @ApiProperty({ example: 'aud_8f14e45f-ceea-467a-9575-7d1bc3d5d5e2' })
  id: string;

  @ApiProperty({ type: 'integer', description: "The entry's number in its account's log, without gaps" })
  sequence: number;

  @ApiProperty({ enum: AUDIT_ACTIONS })
  action: string;

  @ApiProperty({ format: 'date-time' })
  occurredAt: string;

  @ApiProperty({ type: AuditPartyDto })
  actor: AuditPartyDto;

  @ApiProperty({ type: AuditPartyDto })
  target: AuditPartyDto;

  @ApiProperty({ type: String, nullable: true })
  projectId: string | null;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    description: 'Each changed field as [before, after]',
  })
  changes: Record<string, [unknown, unknown]> | null;

  @ApiProperty({ type: String, nullable: true })
  ip: string | null;

  @ApiProperty({ type: String, nullable: true })
  userAgent: string | null;

  @ApiProperty({ type: String, nullable: true })
  requestId: string | null;

  @ApiProperty({ description: "SHA-256 of the previous entry's hash and this entry's canonical JSON" })
  hash: string;
}

export class AuditLogResponse {
  @ApiProperty({ type: [AuditEntryResponse] })
  data: AuditEntryResponse[];

  @ApiProperty()
  hasMore: boolean;
}

export class AuditVerifyResponse {
  @ApiProperty()
  valid: boolean;

  @ApiProperty({ type: 'integer', description: 'Entries checked before the first break (all of them when valid)' })
  checked: number;

  @ApiProperty({
    type: 'integer',
    nullable: true,
    description: 'The first number whose entry was edited, removed or out of chain',
  })
  firstBrokenSequence: number | null;
}
