import { configNamespace } from './namespace';

export const databaseConfig = configNamespace('database', (env) => ({
  uri: env.MONGODB_URI,
  dataDir: env.DATA_DIR,
  ferretdbBin: env.FERRETDB_BIN,
  embeddedBackend: env.EMBEDDED_DATABASE_BACKEND,
  embeddedPostgresUrl: env.EMBEDDED_POSTGRES_URL,
}));

export type DatabaseConfig = ReturnType<typeof databaseConfig.build>;
