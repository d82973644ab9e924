import { join, resolve } from 'node:path';
import { configNamespace } from './namespace';

export const mailConfig = configNamespace('mail', (env) => ({
  smtpUrl: env.SMTP_URL ?? null,
  from: env.MAIL_FROM,
  /** Where mails go without SMTP_URL (development and tests only: production requires SMTP_URL). */
  directory: resolve(join(env.DATA_DIR, 'mail')),
  publicUrl: env.PUBLIC_URL.replace(/\/+$/, ''),
  maxPerEmail: env.MAIL_MAX_PER_EMAIL,
  maxPerClient: env.MAIL_MAX_PER_CLIENT,
  windowSeconds: env.MAIL_WINDOW_SECONDS,
}));

export type MailConfig = ReturnType<typeof mailConfig.build>;
