import type { ImportFailure } from './market-import.model.js';

/** A deliberate "no" of the import worker (unknown market, nothing importable): recorded as the answer. */
export class ImportRefused extends Error {
  constructor(readonly failure: ImportFailure) {
    super(failure.message);
  }
}

export const refuseImport = (status: number, code: string, message: string, fix: string) =>
  new ImportRefused({ status, code, message, fix });
