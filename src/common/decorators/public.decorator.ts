import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiSecurity } from '@nestjs/swagger';

export const IS_PUBLIC = 'isPublic';

/**
 * Opts a route out of the global bearer-token guard. Everything else needs a token.
 * In the OpenAPI document the route gets an empty security requirement (anonymous allowed),
 * which overrides the document-wide bearer requirement.
 */
export const Public = () => applyDecorators(SetMetadata(IS_PUBLIC, true), ApiSecurity({}));
