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
  /** Fastify's server limits: a silent connection, a whole request, an idle keep-alive connection (ms). */
  timeouts: {
    connectionMs: env.HTTP_CONNECTION_TIMEOUT_MS,
    requestMs: env.HTTP_REQUEST_TIMEOUT_MS,
    keepAliveMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
  },
}));

export type AppConfig = ReturnType<typeof appConfig.build>;
