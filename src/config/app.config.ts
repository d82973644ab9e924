import { configNamespace } from './namespace';

export const appConfig = configNamespace('app', (env) => ({
  nodeEnv: env.NODE_ENV,
  port: env.PORT,
  host: env.HOST,
  bodyLimit: env.BODY_LIMIT,
  trustProxy: env.TRUST_PROXY,
  corsOrigins: env.CORS_ORIGINS.split(',')
    .map((origin) => origin.trim())
    .filter(Boolean),
  logLevel: env.LOG_LEVEL,
}));

export type AppConfig = ReturnType<typeof appConfig.build>;
