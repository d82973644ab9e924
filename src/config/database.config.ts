import { registerAs } from '@nestjs/config';
import { validateEnvironment } from './env.validation';

export const databaseConfig = registerAs('database', () => {
  const env = validateEnvironment(process.env);
  return {
    uri: env.MONGODB_URI,
    dataDir: env.DATA_DIR,
    ferretdbBin: env.FERRETDB_BIN,
    embeddedPostgresUrl: env.EMBEDDED_POSTGRES_URL,
  };
});

export type DatabaseConfig = ReturnType<typeof databaseConfig>;
