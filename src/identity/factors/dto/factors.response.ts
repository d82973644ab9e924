import { ApiProperty } from '@nestjs/swagger';

export class TotpEnrolmentResponse {
  @ApiProperty({ description: 'The secret, base32, for typing into an authenticator app', example: 'JBSWY3DPEHPK3PXP' })
  secret: string;

  @ApiProperty({
    description: 'The same secret as an otpauth:// URI, for a QR code',
    example: 'otpauth://totp/Platform:ada%40example.com?secret=JBSWY3DPEHPK3PXP&issuer=Platform',
  })
  uri: string;
}

export class RecoveryCodesResponse {
  @ApiProperty({ example: 'TOTP turned on' })
  message: string;

  @ApiProperty({
    type: [String],
    description: 'Ten single-use recovery codes, shown this once',
    example: ['abcde-fghij'],
  })
  recoveryCodes: string[];
}

export class SecondFactors {
  @ApiProperty({
    type: String,
    nullable: true,
    format: 'date-time',
    description: 'When TOTP was turned on; null while it is off',
  })
  totpEnabledAt: string | null;

  @ApiProperty({ type: 'integer', description: 'Recovery codes not used yet (0 while TOTP is off)', example: 10 })
  recoveryCodesLeft: number;

  @ApiProperty({ type: 'integer', description: 'Passkeys registered', example: 1 })
  passkeys: number;
}

export class SecondFactorsEnvelope {
  @ApiProperty({ type: SecondFactors })
  data: SecondFactors;
}
