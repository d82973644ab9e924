import { ArgumentsHost, Catch, ExceptionFilter, HttpException, HttpStatus, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { STATUS_CODES } from 'node:http';
import { isDuplicateKey } from '../database/duplicate-key';
import { RequestValidationException } from '../pipes/validation.pipe';
import { TooManyRequestsException } from '../http/too-many-requests.exception';

export interface ErrorBody {
  statusCode: number;
  error: string;
  message: string;
  errors?: { field: string; messages: string[] }[];
  /** A machine-readable reason where a client must act on it (`mfa_required`, `step_up_required`, `email_unverified`). */
  code?: string;
}

const DATABASE_UNAVAILABLE = new Set([
  'MongoNetworkError',
  'MongoNetworkTimeoutError',
  'MongoServerSelectionError',
  'MongooseServerSelectionError',
  'MongoNotConnectedError',
  'MongoTopologyClosedError',
  'PoolClearedError',
  'PoolClearedOnNetworkError',
]);

/**
 * Errors raised before a handler runs (content type, body size, JSON) reach the global filter too:
 * Nest installs its exception layer as Fastify's error handler.
 *
 * Turns any failure into the contract's error body. Known client mistakes keep their 4xx and a
 * message that says what is wrong; anything unexpected is logged with its cause and answered with
 * a bare 500, so no stack, driver message or query leaves the service.
 */
export function toErrorBody(exception: unknown): ErrorBody {
  if (exception instanceof RequestValidationException) {
    return { ...body(exception.getStatus(), exception.message), errors: exception.fieldErrors };
  }
  if (exception instanceof HttpException) {
    // Nest wraps Fastify's own 4xx errors (content type, body size) and keeps them as the cause.
    const cause = exception.cause as { code?: unknown; message?: string; statusCode?: unknown } | undefined;
    if (typeof cause?.code === 'string' && cause.code.startsWith('FST_')) {
      return body(exception.getStatus(), fastifyMessage(cause));
    }
    const response = exception.getResponse();
    const code = typeof response === 'object' ? (response as { code?: unknown }).code : undefined;
    const answer = body(exception.getStatus(), messageOf(response, exception.message));
    return typeof code === 'string' ? { ...answer, code } : answer;
  }
  const error = exception as {
    name?: string;
    code?: unknown;
    statusCode?: unknown;
    message?: string;
    keyValue?: object;
  };
  if (error?.name === 'MongoServerError' || error?.name === 'MongoBulkWriteError') {
    if (isDuplicateKey(error)) {
      // MongoDB names the fields in keyValue; FerretDB does not, so services that know which
      // unique field collided throw their own ConflictException with a precise message.
      const fields = Object.keys(error.keyValue ?? {});
      return body(
        409,
        fields.length
          ? `A record with this ${fields.join(', ')} already exists`
          : 'A record with these unique values already exists',
      );
    }
  }
  if (error?.name === 'CastError' || error?.name === 'BSONError') {
    return body(400, 'Malformed identifier or value');
  }
  if (error?.name && DATABASE_UNAVAILABLE.has(error.name)) {
    return body(503, 'Database unavailable, try again shortly');
  }
  if (
    error?.name === 'MongooseError' &&
    /buffering timed out|not connected|Connection.*closed/i.test(error.message ?? '')
  ) {
    return body(503, 'Database unavailable, try again shortly');
  }
  // Errors raised by Fastify itself (body parsing, content type, size) carry a 4xx statusCode.
  if (typeof error?.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return body(error.statusCode, fastifyMessage(error));
  }
  return body(500, 'Internal server error');
}

function body(statusCode: number, message: string): ErrorBody {
  return { statusCode, error: STATUS_CODES[statusCode] ?? 'Error', message };
}

function messageOf(response: string | object, fallback: string): string {
  if (typeof response === 'string') return response;
  const message = (response as { message?: unknown }).message;
  if (typeof message === 'string') return message;
  if (Array.isArray(message)) return message.join('; ');
  return fallback;
}

function fastifyMessage(error: { code?: unknown; message?: string; statusCode?: unknown }): string {
  switch (error.code) {
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return 'Unsupported content type: send the body as application/json';
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return 'Request body is too large';
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return 'Body cannot be empty when content-type is application/json';
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return 'Malformed JSON in request body';
    default:
      if (error.statusCode === 400 && error.message && /JSON|Unexpected token|Unexpected end/i.test(error.message)) {
        return 'Malformed JSON in request body';
      }
      return error.message ?? 'Bad request';
  }
}

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Exceptions');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const { httpAdapter } = this.adapterHost;
    const reply = host.switchToHttp().getResponse();
    const errorBody = toErrorBody(exception);
    if (errorBody.statusCode >= HttpStatus.INTERNAL_SERVER_ERROR) {
      this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    }
    if (errorBody.statusCode === HttpStatus.SERVICE_UNAVAILABLE) {
      httpAdapter.setHeader(reply, 'Retry-After', '5');
    }
    if (exception instanceof TooManyRequestsException) {
      httpAdapter.setHeader(reply, 'Retry-After', String(exception.retryAfterSeconds));
    }
    httpAdapter.reply(reply, errorBody, errorBody.statusCode);
  }
}
