import { SetMetadata } from '@nestjs/common';

export const IS_PUBLIC = 'isPublic';

/** Opts a route out of the global bearer-token guard. Everything else needs a token. */
export const Public = () => SetMetadata(IS_PUBLIC, true);
