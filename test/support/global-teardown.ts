import { rmSync } from 'node:fs';
import type { EmbeddedDatabase } from '../../src/database/embedded-database';
import type { MailServerProcess } from './mail-server';

export default async function globalTeardown(): Promise<void> {
  const database = (globalThis as { __TEST_DATABASE__?: EmbeddedDatabase }).__TEST_DATABASE__;
  await database?.stop();
  await (globalThis as { __TEST_MAIL__?: MailServerProcess }).__TEST_MAIL__?.stop();
  if (process.env.TEST_DATABASE_DIR) rmSync(process.env.TEST_DATABASE_DIR, { recursive: true, force: true });
}
