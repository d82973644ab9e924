import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { getConnectionToken } from '@nestjs/mongoose';
import type { Connection } from 'mongoose';
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { createApp } from '../../src/app.factory';
import { validateEnvironment } from '../../src/config/env.validation';
import { searchConfig, type SearchConfig } from '../../src/config/search.config';
import { HttpClient } from './http';
import { testDatabaseUri } from './test-database';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';
export const TEST_CARD_FINGERPRINT_KEY = 'test-card-fingerprint-key-0123456789abcdef';
export const TEST_FIELD_ENCRYPTION_KEY = `t1:${Buffer.alloc(32, 42).toString('base64')}`;

export interface TestApp {
  app: NestFastifyApplication;
  http: HttpClient;
  baseUrl: string;
  /** The test file's own database, for asserting what is stored. */
  db: Connection;
  close(): Promise<void>;
}

/**
 * Boots the real application on its own database and a real port. Each call gets a fresh database,
 * so test files never see each other's data. `env` overrides variables for this app only: the
 * application is built from the environment it is given, never from process.env itself.
 */
export async function createTestApp(env: Record<string, string> = {}): Promise<TestApp> {
  const databaseName = `test_${randomBytes(6).toString('hex')}`;
  const environment = validateEnvironment({
    ...process.env,
    NODE_ENV: 'test',
    JWT_SECRET: TEST_JWT_SECRET,
    CARD_FINGERPRINT_KEY: TEST_CARD_FINGERPRINT_KEY,
    FIELD_ENCRYPTION_KEY: TEST_FIELD_ENCRYPTION_KEY,
    BCRYPT_ROUNDS: '4',
    // Every test signs up and logs in from one address; throttling tests set their own limits.
    LOGIN_MAX_FAILURES_PER_CLIENT: '100000',
    PASSKEY_OPTIONS_MAX_PER_CLIENT: '100000',
    SIGNUP_MAX_PER_CLIENT: '100000',
    // Suites send bursts from one user; the rate-limit suite sets its own limit.
    RATE_LIMIT_PER_SECOND: '100000',
    VIEWER_RATE_LIMIT_PER_SECOND: '100000',
    // Suites read one asset many times at once; the content limits suite sets its own cap.
    ASSET_CONCURRENT_DOWNLOADS: '1000',
    LOG_LEVEL: 'silent',
    MONGODB_URI: testDatabaseUri(databaseName),
    // Each app's search index is its own, as its database is.
    SEARCH_INSTANCE: databaseName,
    ...env,
  });
  const app = await createApp(environment);
  await app.init();
  await app.getHttpAdapter().getInstance().ready();
  await app.listen(0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const baseUrl = `http://127.0.0.1:${port}`;
  const db = app.get<Connection>(getConnectionToken());
  return {
    app,
    http: new HttpClient(baseUrl),
    baseUrl,
    db,
    close: async () => {
      const index = app.get<SearchConfig>(searchConfig.KEY).file;
      await db.dropDatabase().catch(() => undefined);
      await app.close();
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${index}${suffix}`, { force: true });
    },
  };
}
