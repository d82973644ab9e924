import { authConfig } from '../config/auth.config';
import { financeConfig } from '../config/finance.config';
import { CustomersModule } from '../customers/customers.module';
import { SocialNumberReencryption } from '../customers/social-number-reencryption';
import { runCommand } from './command';

/**
 * `npm run reencrypt`: encrypts social numbers still stored in plain text and moves those under an
 * older key to the first key of FIELD_ENCRYPTION_KEY.
 */
runCommand('Re-encryption', { config: [authConfig, financeConfig], imports: [CustomersModule] }, async (context) => {
  const report = await context.get(SocialNumberReencryption).run();
  return [
    `Social numbers: ${report.encrypted} encrypted from plain text, ${report.rotated} moved to the current key, ${report.current} already current`,
  ];
});
