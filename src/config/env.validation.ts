import 'reflect-metadata';
import { existsSync, readFileSync } from 'node:fs';
import { parseEnv } from 'node:util';
import { parseEncryptionKeys } from '../common/crypto/field-encryption';
import { trustedRangeProblems } from './trust-proxy';
import { plainToInstance } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, MinLength, validateSync } from 'class-validator';

export const NODE_ENVIRONMENTS = ['development', 'production', 'test'] as const;
export const EMBEDDED_DATABASE_BACKENDS = ['postgresql', 'sqlite'] as const;
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/**
 * Every variable the service reads, with its rule and its default: the one place where the
 * environment is interpreted (the config namespaces are built from the validated object).
 * `.env.example` documents the same list, and docs/configuration.md is generated from this class
 * (`npm run config:doc`): each variable's comment is its description there, so every one has one.
 * An optional variable without a default is initialised to undefined so that it is listed too.
 */
export class EnvironmentVariables {
  /** Runtime mode. Anything but `development` requires `JWT_SECRET`, `CARD_FINGERPRINT_KEY` and `FIELD_ENCRYPTION_KEY`; `production` also requires `SMTP_URL`. */
  @IsOptional()
  @IsIn(NODE_ENVIRONMENTS)
  NODE_ENV: (typeof NODE_ENVIRONMENTS)[number] = 'development';

  /** The HTTP port. */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  /** The address to listen on. */
  @IsOptional()
  @IsString()
  HOST: string = '0.0.0.0';

  /** The MongoDB connection string (a replica set or Atlas in production). Unset: the service starts an embedded database under `DATA_DIR` (FerretDB on PostgreSQL, or a `mongod` when `MONGOMS_SYSTEM_BINARY` names one). */
  @IsOptional()
  @Matches(/^mongodb(\+srv)?:\/\/.+/, { message: 'MONGODB_URI must start with mongodb:// or mongodb+srv://' })
  MONGODB_URI?: string = undefined;

  /** Where the embedded database, the development token secret (`jwt-secret`), development mail (`mail/`) and the file store's assets (`assets/`) are kept. */
  @IsOptional()
  @IsString()
  DATA_DIR: string = '.data';

  /** A FerretDB binary for the embedded database; unset: `ferretdb` on `PATH`, else `$(go env GOPATH)/bin/ferretdb`, else built there once with Go (`scripts/install-ferretdb.sh`). */
  @IsOptional()
  @IsString()
  FERRETDB_BIN?: string = undefined;

  /**
   * Longest a stop (SIGTERM, SIGINT) may take: in-flight requests and background work get this long,
   * then the embedded database is stopped and the process exits with 1, so a stuck request never
   * keeps a stopping instance alive. Above the webhook timeout, which a stop waits for.
   */
  @IsOptional()
  @IsInt()
  @Min(1_000)
  SHUTDOWN_TIMEOUT_MS: number = 30_000;

  /**
   * How long a connection may stay silent (nothing read, nothing written: a client that stopped
   * reading a download included) before it is closed, in milliseconds; Fastify's `connectionTimeout`.
   */
  @IsOptional()
  @IsInt()
  @Min(1_000)
  HTTP_CONNECTION_TIMEOUT_MS: number = 60_000;

  /**
   * Longest a client may take to send a whole request, body included, in milliseconds; Fastify's
   * `requestTimeout`. A tus upload cut by it resumes from `HEAD`'s offset.
   */
  @IsOptional()
  @IsInt()
  @Min(1_000)
  HTTP_REQUEST_TIMEOUT_MS: number = 600_000;

  /** How long an idle keep-alive connection is kept open for the client's next request, in milliseconds; Fastify's `keepAliveTimeout`. */
  @IsOptional()
  @IsInt()
  @Min(1_000)
  HTTP_KEEP_ALIVE_TIMEOUT_MS: number = 72_000;

  /** The embedded FerretDB's storage; unset: PostgreSQL (SQLite only for data it already keeps), and a start that fails when PostgreSQL cannot. */
  @IsOptional()
  @IsIn(EMBEDDED_DATABASE_BACKENDS)
  EMBEDDED_DATABASE_BACKEND?: (typeof EMBEDDED_DATABASE_BACKENDS)[number] = undefined;

  /** Set with the embedded database on PostgreSQL (not by hand): FerretDB's PostgreSQL, for its GIN indexes. */
  @IsOptional()
  @Matches(/^postgres(ql)?:\/\/.+/, { message: 'EMBEDDED_POSTGRES_URL must start with postgres://' })
  EMBEDDED_POSTGRES_URL?: string;

  /** A local mongod for the embedded database instead of FerretDB (read by mongodb-memory-server, from the environment). */
  @IsOptional()
  @IsString()
  MONGOMS_SYSTEM_BINARY?: string = undefined;

  /** HS256 secret that signs access tokens, 32 characters or more. Required outside development; unset in development, one is made once in `DATA_DIR/jwt-secret` (mode 0600) and shared by every instance on that folder. */
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'JWT_SECRET must be at least 32 characters long' })
  JWT_SECRET?: string = undefined;

  /** Access token lifetime: seconds, or a duration like `15m`, `1h`, `7d`. */
  @IsOptional()
  @Matches(/^\d+[smhd]?$/, { message: 'JWT_EXPIRES_IN must be a number of seconds or a duration like 15m, 1h, 7d' })
  JWT_EXPIRES_IN: string = '1h';

  /** bcrypt cost of password hashes. */
  @IsOptional()
  @IsInt()
  @Min(4)
  @Max(15)
  BCRYPT_ROUNDS: number = 12;

  /** Failures of one email from one client address before that pair is refused. */
  @IsOptional()
  @IsInt()
  @Min(1)
  LOGIN_MAX_FAILURES: number = 5;

  /**
   * Wrong second-factor codes (TOTP or recovery) of one user, from any address and through any route
   * (sign-in, login, step-up, turning TOTP on or off), within `LOGIN_FAILURE_WINDOW_SECONDS` before
   * codes are refused (429). Counted apart from passwords: only a correct code clears them.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  MFA_MAX_FAILURES: number = 5;

  /**
   * Failures of one email across every address before it is refused, except from an address that
   * logged in to it within 30 days: much higher than the pair's limit, so a stranger cannot lock anyone out.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  LOGIN_MAX_FAILURES_PER_EMAIL: number = 100;

  /** The window the login failure limits, and the passkey options limit, count within. */
  @IsOptional()
  @IsInt()
  @Min(1)
  LOGIN_FAILURE_WINDOW_SECONDS: number = 900;

  /** Failures from one client address across emails before that address is refused: higher than the pair's limit, as many people may share one address (an office, a proxy). */
  @IsOptional()
  @IsInt()
  @Min(1)
  LOGIN_MAX_FAILURES_PER_CLIENT: number = 20;

  /**
   * Passkey ceremonies (options, each a challenge written) one address may start within
   * `LOGIN_FAILURE_WINDOW_SECONDS`: every one counts, answered or not, so it is well above the
   * failures' limit for the people behind one address (an office, a proxy).
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  PASSKEY_OPTIONS_MAX_PER_CLIENT: number = 100;

  /** Signups that succeeded from one client address within `SIGNUP_WINDOW_SECONDS` before `429`; an address refused 3 times this number within the window (someone trying emails) is refused too. */
  @IsOptional()
  @IsInt()
  @Min(1)
  SIGNUP_MAX_PER_CLIENT: number = 10;

  /** The window signups are counted within. */
  @IsOptional()
  @IsInt()
  @Min(1)
  SIGNUP_WINDOW_SECONDS: number = 3600;

  /** A dashboard session ends after this many minutes without a request. */
  @IsOptional()
  @IsInt()
  @Min(1)
  SESSION_IDLE_MINUTES: number = 30;

  /** A dashboard session ends this many hours after its sign-in, however active. */
  @IsOptional()
  @IsInt()
  @Min(1)
  SESSION_MAX_HOURS: number = 12;

  /** How long a second factor proven in a session allows money-moving actions (step-up). */
  @IsOptional()
  @IsInt()
  @Min(1)
  STEP_UP_MINUTES: number = 10;

  /**
   * Comma-separated origins (`https://dashboard.example.com`) besides the service's own from which a
   * request carrying the session cookie may change anything.
   */
  @IsOptional()
  @Matches(/^(https?:\/\/[^\s,/]+(\s*,\s*https?:\/\/[^\s,/]+)*)?$/, {
    message: 'DASHBOARD_ORIGINS must be a comma-separated list of origins like https://dashboard.example.com',
  })
  DASHBOARD_ORIGINS: string = '';

  /**
   * The WebAuthn relying party id passkeys are bound to: the service's host or a parent domain of it
   * and of every dashboard origin (`example.com` for `api.example.com` and `dashboard.example.com`).
   * Empty: the host of `PUBLIC_URL`. Changing it makes every registered passkey unusable.
   */
  @IsOptional()
  @Matches(/^([a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*)?$/, {
    message: 'PASSKEY_RP_ID must be a domain name like example.com (no scheme, no port)',
  })
  PASSKEY_RP_ID: string = '';

  /**
   * Which proxies to trust for the client address (X-Forwarded-For): unset or `false` trusts none;
   * a hop count (`1` behind one load balancer); or a comma-separated list of addresses or CIDRs.
   * `true` (trust any X-Forwarded-For) is refused: every client could then pick its own address, and
   * with it its own login-throttling bucket; so is a list whose ranges hold every address
   * (`0.0.0.0/0`, `::/0`, `0.0.0.0/1,128.0.0.0/1`...), which does the same.
   */
  @IsOptional()
  @Matches(/^(false|\d+|[0-9a-fA-F.:/]+(\s*,\s*[0-9a-fA-F.:/]+)*)$/, {
    message:
      'TRUST_PROXY must be false, a hop count, or a comma-separated list of addresses or CIDRs (true, trusting any X-Forwarded-For, is refused: ' +
      'every client could choose its own address)',
  })
  TRUST_PROXY: string = 'false';

  /** Largest request body in bytes; a larger one is `413`. */
  @IsOptional()
  @IsInt()
  @Min(1024)
  BODY_LIMIT: number = 1_048_576;

  /** Comma-separated browser origins allowed by CORS, or `*`; empty: CORS off. */
  @IsOptional()
  @IsString()
  CORS_ORIGINS: string = '';

  /** pino's log level; `silent` turns logs off. */
  @IsOptional()
  @IsIn(LOG_LEVELS)
  LOG_LEVEL: (typeof LOG_LEVELS)[number] = 'info';

  /** Master key of the card fingerprints (an HMAC of the number, keyed per account), 32 characters or more. Required outside development; in development derived from `JWT_SECRET`. */
  @IsOptional()
  @IsString()
  @MinLength(32, { message: 'CARD_FINGERPRINT_KEY must be at least 32 characters long' })
  CARD_FINGERPRINT_KEY?: string = undefined;

  /**
   * AES-256-GCM keys of the fields encrypted at rest (the customer's `SocialNumber`): `<id>:<base64 of
   * 32 bytes>`, comma-separated, the first encrypts (see FieldEncryption). Rotate by putting a new key
   * first and running `npm run reencrypt`. Required outside development; in development derived from
   * `JWT_SECRET`.
   */
  @IsOptional()
  @IsString()
  FIELD_ENCRYPTION_KEY?: string = undefined;

  /**
   * Whether encrypted values of the older form (`enc:v1`, bound to the field only) are still read;
   * unset: until `npm run reencrypt` has run to its end once (it records that in the database).
   */
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'ACCEPT_LEGACY_CIPHERTEXT must be true or false' })
  ACCEPT_LEGACY_CIPHERTEXT?: string = undefined;

  /**
   * Requests a second each API key, and each user in each platform project, may send to the data API:
   * across every instance with `REDIS_URL`, per instance without; 0 turns limits off. Stripe's test
   * mode allows about 25.
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  RATE_LIMIT_PER_SECOND: number = 25;

  /**
   * Requests a second every viewer of one publishable key may send together; each client address
   * among them gets `RATE_LIMIT_PER_SECOND`, so one client's 429s do not stop the app's other viewers.
   */
  @IsOptional()
  @IsInt()
  @Min(1)
  VIEWER_RATE_LIMIT_PER_SECOND: number = 250;

  /**
   * The Redis where every instance counts the rate limits together; unset: each instance counts on
   * its own. While Redis cannot be reached, each instance counts on its own again.
   */
  @IsOptional()
  @Matches(/^rediss?:\/\/.+/, { message: 'REDIS_URL must start with redis:// or rediss://' })
  REDIS_URL?: string = undefined;

  /** How long events are kept (the event list, and what a retried delivery can still send). */
  @IsOptional()
  @IsInt()
  @Min(1)
  EVENT_RETENTION_DAYS: number = 30;

  /**
   * The name of this instance's search index file, `DATA_DIR/search/<name>.sqlite`: each instance
   * keeps its own and follows the events into it. Unset: the host name and `PORT`, so instances on
   * one machine keep one file each; set it to keep one file across a change of port.
   */
  @IsOptional()
  @Matches(/^[A-Za-z0-9._-]{1,100}$/, {
    message: 'SEARCH_INSTANCE must be 1 to 100 letters, digits, dots, dashes or underscores',
  })
  SEARCH_INSTANCE?: string = undefined;

  /** How long audit log entries are kept; the oldest kept entry anchors the chain. */
  @IsOptional()
  @IsInt()
  @Min(1)
  AUDIT_RETENTION_DAYS: number = 365;

  /** A webhook attempt answered 2xx within this time succeeded. */
  @IsOptional()
  @IsInt()
  @Min(100)
  @Max(60_000)
  WEBHOOK_TIMEOUT_MS: number = 10_000;

  /** Seconds to wait before each attempt, counted from the previous attempt (the first: from the event), as Svix's; after the last, the delivery failed. */
  @IsOptional()
  @Matches(/^\d+(\s*,\s*\d+)*$/, {
    message: 'WEBHOOK_RETRY_SCHEDULE must be a comma-separated list of seconds, like 0,5,300',
  })
  WEBHOOK_RETRY_SCHEDULE: string = '0,5,300,1800,7200,18000,36000,36000';

  /** An endpoint whose every delivery has failed for this long is disabled. */
  @IsOptional()
  @IsInt()
  @Min(1)
  WEBHOOK_DISABLE_AFTER_HOURS: number = 72;

  /**
   * Where mail is sent (`smtp://host:port`, `smtps://user:pass@host:465`; nodemailer's URL form).
   * Unset in development and tests: each mail is written to `DATA_DIR/mail/` as an `.eml` file and
   * its links are logged. Required in production.
   */
  @IsOptional()
  @Matches(/^smtps?:\/\/.+/, { message: 'SMTP_URL must start with smtp:// or smtps://' })
  SMTP_URL?: string = undefined;

  /** The sender of every mail, an address or `Name <address>`. */
  @IsOptional()
  @IsString()
  MAIL_FROM: string = 'Platform <no-reply@localhost>';

  /**
   * The service's address as its users reach it: the base of every link a mail holds, and the origin
   * a request with the session cookie must come from. Empty: `http://localhost:` and `PORT`.
   */
  @IsOptional()
  @Matches(/^https?:\/\/[^/\s]+(\/[^\s]*)?$/, { message: 'PUBLIC_URL must be an http:// or https:// URL' })
  PUBLIC_URL: string = '';

  /** Password reset and verification mails one email address may be sent within `MAIL_WINDOW_SECONDS`. */
  @IsOptional()
  @IsInt()
  @Min(1)
  MAIL_MAX_PER_EMAIL: number = 5;

  /** Password reset and verification mails one client address may ask for within `MAIL_WINDOW_SECONDS`. */
  @IsOptional()
  @IsInt()
  @Min(1)
  MAIL_MAX_PER_CLIENT: number = 20;

  /** The window the mail limits count within; past a limit a reset answers `202` and sends nothing, a resend is `429`. */
  @IsOptional()
  @IsInt()
  @Min(1)
  MAIL_WINDOW_SECONDS: number = 3600;

  /** Development and tests only: `http` URLs and private, loopback and link-local addresses for webhook endpoints. */
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'WEBHOOK_ALLOW_PRIVATE_URLS must be true or false' })
  WEBHOOK_ALLOW_PRIVATE_URLS: string = 'false';

  /** Largest file one asset may hold, in bytes (5 GiB): a larger asset is refused with 413 before any byte is kept. */
  @IsOptional()
  @IsInt()
  @Min(1)
  ASSET_MAX_BYTES: number = 5 * 1024 ** 3;

  /** Bytes every asset of one platform project may hold together (50 GiB); over it, a new asset is refused with 413. */
  @IsOptional()
  @IsInt()
  @Min(1)
  PROJECT_STORAGE_BYTES: number = 50 * 1024 ** 3;

  /**
   * The origin signed content URLs are built on (`https://assets.example.com`), a host that serves
   * this service's `/asset-content/...` and nothing of its sign-in: user bytes are then read apart
   * from the API's origin and its cookies. Unset: the origin the request for the URL came to.
   */
  @IsOptional()
  @Matches(/^https?:\/\/[^/\s?#]+\/?$/, {
    message: 'ASSET_PUBLIC_URL must be an http:// or https:// origin, without a path',
  })
  ASSET_PUBLIC_URL?: string = undefined;

  /**
   * How long one instance holds an asset it processes, renewed every third of it while it works; a
   * holder that crashed lets another instance take the asset over after this. Processing may last
   * longer (its deadline grows with the file); the renewal keeps it.
   */
  @IsOptional()
  @IsInt()
  @Min(300)
  ASSET_PROCESSING_LEASE_MS: number = 600_000;

  /** Downloads of asset bytes one credential (a token, a key, a signed URL) may have open at once, per instance; one more is 429. */
  @IsOptional()
  @IsInt()
  @Min(1)
  ASSET_CONCURRENT_DOWNLOADS: number = 16;

  /** Wrong passwords one share link takes within SHARE_PASSWORD_WINDOW_SECONDS; past them it answers 429 until the window ends. */
  @IsOptional()
  @IsInt()
  @Min(1)
  SHARE_PASSWORD_MAX_FAILURES: number = 10;

  /** The window, in seconds, over which a share link's wrong passwords are counted. */
  @IsOptional()
  @IsInt()
  @Min(1)
  SHARE_PASSWORD_WINDOW_SECONDS: number = 900;

  /**
   * The S3-compatible bucket that holds assets' bytes, shared by every instance. Unset: the file
   * system under DATA_DIR/assets, which only instances sharing that folder can use. Required when
   * S3_ENDPOINT or S3_ACCESS_KEY_ID is set.
   */
  @IsOptional()
  @IsString()
  S3_BUCKET?: string = undefined;

  /** The S3 service's URL (SeaweedFS, MinIO, another cloud's); unset: AWS, found from S3_REGION. */
  @IsOptional()
  @Matches(/^https?:\/\/\S+$/, { message: 'S3_ENDPOINT must be an http:// or https:// URL' })
  S3_ENDPOINT?: string = undefined;

  /** The bucket's region. */
  @IsOptional()
  @IsString()
  S3_REGION: string = 'us-east-1';

  /** The bucket's keys; both unset, the AWS SDK's own chain (an instance role, AWS_* variables). */
  @IsOptional()
  @IsString()
  S3_ACCESS_KEY_ID?: string = undefined;

  /** The secret of `S3_ACCESS_KEY_ID`: both or neither. */
  @IsOptional()
  @IsString()
  S3_SECRET_ACCESS_KEY?: string = undefined;

  /** `true`: the bucket in the path (`endpoint/bucket/key`), as most self-hosted services need; `false`: in the host name. */
  @IsOptional()
  @IsIn(['true', 'false'], { message: 'S3_FORCE_PATH_STYLE must be true or false' })
  S3_FORCE_PATH_STYLE: string = 'false';
}

/**
 * The process's environment, validated: what the service's entry points (main.ts, the operator
 * commands) read, once. A `.env` file in the working directory is loaded first, under what is
 * already set (a variable of the environment wins), as `.env.example` describes.
 */
export function loadEnvironment(envFile = '.env'): EnvironmentVariables {
  if (existsSync(envFile)) {
    // Into process.env, as other readers of the environment (mongodb-memory-server's MONGOMS_*) expect.
    for (const [name, value] of Object.entries(parseEnv(readFileSync(envFile, 'utf8')))) process.env[name] ??= value;
  }
  return validateEnvironment(process.env);
}

/**
 * Validates the environment at start-up. A wrong value stops the service with a message that names
 * the variable, so a typo in a deployment fails loudly instead of running with a default.
 */
export function validateEnvironment(raw: Record<string, unknown>): EnvironmentVariables {
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(new EnvironmentVariables())) {
    const value = raw[key];
    if (value !== undefined && value !== '') input[key] = value;
  }
  const env = plainToInstance(EnvironmentVariables, input, { enableImplicitConversion: true });
  // Where a developer's `PORT=3001 npm start` is reached, so its dashboard's writes pass the Origin check.
  env.PUBLIC_URL ||= `http://localhost:${env.PORT}`;
  const errors = validateSync(env, { skipMissingProperties: false });
  const problems = errors.flatMap((error) =>
    Object.values(error.constraints ?? {}).map((message) =>
      message.startsWith(error.property) ? message : `${error.property}: ${message}`,
    ),
  );
  // Only development may run on a generated secret: a test or production deployment signs with its own.
  if (env.NODE_ENV !== 'development') {
    for (const secret of ['JWT_SECRET', 'CARD_FINGERPRINT_KEY', 'FIELD_ENCRYPTION_KEY'] as const) {
      if (!env[secret]) problems.push(`${secret} is required outside development (NODE_ENV is ${env.NODE_ENV})`);
    }
  }
  // Production mail must reach people: a file under DATA_DIR on one replica reaches nobody.
  if (env.NODE_ENV === 'production' && !env.SMTP_URL)
    problems.push('SMTP_URL is required in production (NODE_ENV is production)');
  if (
    env.TRUST_PROXY &&
    !errors.some((error) => error.property === 'TRUST_PROXY') &&
    !/^(false|\d+)$/.test(env.TRUST_PROXY)
  ) {
    problems.push(...trustedRangeProblems(env.TRUST_PROXY));
  }
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY)) {
    problems.push(
      "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together: set both, or neither for the AWS SDK's own credentials",
    );
  }
  if ((env.S3_ENDPOINT || env.S3_ACCESS_KEY_ID) && !env.S3_BUCKET)
    problems.push('S3_BUCKET is required when S3_ENDPOINT or S3_ACCESS_KEY_ID is set');
  if (env.FIELD_ENCRYPTION_KEY) {
    try {
      parseEncryptionKeys(env.FIELD_ENCRYPTION_KEY);
    } catch (error) {
      problems.push((error as Error).message);
    }
  }
  if (problems.length > 0) {
    throw new Error(`Invalid environment configuration:\n  - ${problems.join('\n  - ')}`);
  }
  return env;
}
