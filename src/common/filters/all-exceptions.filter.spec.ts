import { BadRequestException, HttpException, NotFoundException } from '@nestjs/common';
import { RequestValidationException } from '../pipes/validation.pipe';
import { toErrorBody } from './all-exceptions.filter';

describe('toErrorBody', () => {
  it('keeps the status and message of HTTP exceptions', () => {
    expect(toErrorBody(new NotFoundException('Channel not found'))).toEqual({
      statusCode: 404,
      error: 'Not Found',
      message: 'Channel not found',
    });
  });

  it('adds the field errors of a validation failure', () => {
    const body = toErrorBody(
      new RequestValidationException([{ field: 'email', messages: ['email must be an email'] }]),
    );
    expect(body).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Validation failed: email must be an email',
      errors: [{ field: 'email', messages: ['email must be an email'] }],
    });
  });

  it('maps a duplicate key to 409 and names the fields MongoDB reports', () => {
    const duplicate = Object.assign(new Error('E11000 duplicate key error collection: db.channels index: username_1'), {
      name: 'MongoServerError',
      code: 11000,
      keyValue: { username: 'x' },
    });
    expect(toErrorBody(duplicate)).toEqual({
      statusCode: 409,
      error: 'Conflict',
      message: 'A record with this username already exists',
    });
  });

  it('maps cast errors to 400 without the driver message', () => {
    const cast = Object.assign(new Error('Cast to ObjectId failed for value "x" at path "_id"'), { name: 'CastError' });
    expect(toErrorBody(cast)).toEqual({
      statusCode: 400,
      error: 'Bad Request',
      message: 'Malformed identifier or value',
    });
  });

  it('maps an unreachable database to 503', () => {
    const down = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:27017'), {
      name: 'MongoServerSelectionError',
    });
    expect(toErrorBody(down).statusCode).toBe(503);
    const buffering = Object.assign(new Error('Operation `users.findOne()` buffering timed out after 3000ms'), {
      name: 'MongooseError',
    });
    expect(toErrorBody(buffering).statusCode).toBe(503);
  });

  it('gives Fastify body errors a message that says what is wrong', () => {
    const tooLarge = new HttpException('Request body is too large', 413, {
      cause: Object.assign(new Error('Request body is too large'), {
        code: 'FST_ERR_CTP_BODY_TOO_LARGE',
        statusCode: 413,
      }),
    });
    expect(toErrorBody(tooLarge)).toEqual({
      statusCode: 413,
      error: 'Payload Too Large',
      message: 'Request body is too large',
    });
    const mediaType = new HttpException('Unsupported Media Type', 415, {
      cause: Object.assign(new Error('Unsupported Media Type'), {
        code: 'FST_ERR_CTP_INVALID_MEDIA_TYPE',
        statusCode: 415,
      }),
    });
    expect(toErrorBody(mediaType).message).toBe('Unsupported content type: send the body as application/json');
  });

  it('hides everything about an unexpected error', () => {
    const body = toErrorBody(new TypeError("Cannot read properties of undefined (reading 'x')"));
    expect(body).toEqual({ statusCode: 500, error: 'Internal Server Error', message: 'Internal server error' });
  });

  it('joins array messages of plain bad requests', () => {
    expect(toErrorBody(new BadRequestException(['a is wrong', 'b is wrong'])).message).toBe('a is wrong; b is wrong');
  });
});
