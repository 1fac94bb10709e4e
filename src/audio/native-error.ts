/** An error from the native audio core or its option checks, with a stable `code`. */
export class NativeError extends Error {
  constructor(readonly code: string, message: string) {
    super(message);
    this.name = 'NativeError';
  }
}
