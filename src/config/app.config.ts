import { registerAs } from '@nestjs/config';
import { validateEnvironment } from './env.validation';

export const appConfig = registerAs('app', () => {
  const env = validateEnvironment(process.env);
  return {
    nodeEnv: env.NODE_ENV,
    port: env.PORT,
    host: env.HOST,
    bodyLimit: env.BODY_LIMIT,
    corsOrigins: env.CORS_ORIGINS.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    logLevel: env.LOG_LEVEL,
  };
});

export type AppConfig = ReturnType<typeof appConfig>;
