import { CustomersModule } from '../customers/customers.module';
import { SocialNumberReencryption } from '../customers/social-number-reencryption';
import { runCommand } from './command';

/**
 * `npm run reencrypt`: encrypts social numbers still stored in plain text, moves those under an
 * older key to the first key of FIELD_ENCRYPTION_KEY, and rewrites those of the older form (the
 * field's name bound in) in the current one (the customer's id and the field's name). A run to its
 * end is recorded in the database: from then on, unless ACCEPT_LEGACY_CIPHERTEXT says otherwise, the
 * service (at its next start) refuses values of the older form.
 */
runCommand('Re-encryption', { imports: [CustomersModule] }, async (context) => {
  const report = await context.get(SocialNumberReencryption).run();
  return [
    `Social numbers: ${report.encrypted} encrypted from plain text, ${report.rotated} moved to the current key, ` +
      `${report.upgraded} bound to their customer, ${report.current} already current`,
    ...(report.undecryptable.length > 0
      ? [
          `${report.undecryptable.length} left as they are: they do not decrypt as their customer's (customers ${report.undecryptable.join(', ')})`,
        ]
      : []),
    'Recorded: values of the older form (enc:v1) are refused from the next start of the service, unless ACCEPT_LEGACY_CIPHERTEXT=true',
  ];
});
