import { deferDateFormats } from './deferred-date-formats';

/**
 * main.ts's first import, so that every module imported after it finds date formats deferred
 * (deferred-date-formats.ts); main stops the deferral once they are all imported.
 */
export const whileImporting = deferDateFormats();
