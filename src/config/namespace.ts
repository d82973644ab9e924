import type { DynamicModule } from '@nestjs/common';
import { ConfigModule, registerAs } from '@nestjs/config';
import type { ConfigFactory, ConfigFactoryKeyHost, ConfigObject } from '@nestjs/config';
import type { EnvironmentVariables } from './env.validation';

/**
 * A configuration namespace (`app`, `auth`, ...), built from the environment validated once at
 * start-up. It is the injection token, as `registerAs` gives one (`@Inject(authConfig.KEY)`,
 * `ConfigType<typeof authConfig>`, `ConfigService.getOrThrow('auth')`); `build(env)` computes its
 * settings. No namespace reads process.env: every variable's rule and default is in env.validation.ts.
 */
export type ConfigNamespace<T extends ConfigObject> = ConfigFactory<T> &
  ConfigFactoryKeyHost<T> & {
    readonly namespace: string;
    build(env: EnvironmentVariables): T;
  };

/** What configModule() needs of a namespace, whatever its settings' type. */
export type NamespaceBuilder = Pick<ConfigNamespace<ConfigObject>, 'namespace' | 'build'>;

export function configNamespace<T extends ConfigObject>(
  namespace: string,
  build: (env: EnvironmentVariables) => T,
): ConfigNamespace<T> {
  // Only the token is used: configModule() registers the factory that builds the settings from an environment.
  const token = registerAs(namespace, (): T => {
    throw new Error(
      `The ${namespace} configuration is built from the validated environment: load it with configModule(env, ...)`,
    );
  });
  return Object.assign(token, { namespace, build });
}

/**
 * The global ConfigModule holding these namespaces, built from `env`. It reads neither a `.env` file
 * nor process.env (loadEnvironment() did, once), so a setting has one source.
 */
export function configModule(
  env: EnvironmentVariables,
  namespaces: readonly NamespaceBuilder[],
): Promise<DynamicModule> {
  return ConfigModule.forRoot({
    isGlobal: true,
    ignoreEnvFile: true,
    validatePredefined: false,
    skipProcessEnv: true,
    load: namespaces.map((namespace) => registerAs(namespace.namespace, () => namespace.build(env))),
  });
}
