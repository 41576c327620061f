/**
 * Typed errors. Every failure pixfit reports is a {@link PixfitError} with a stable `code`
 * that callers can switch on; messages are for people and may change.
 */

/** Stable error codes. */
export type ErrorCode =
  /** The input has zero bytes. */
  | "EMPTY_INPUT"
  /** No known signature, or a known format pixfit does not handle (HEIC, AVIF, TIFF, ...). */
  | "UNSUPPORTED_FORMAT"
  /** Truncated or malformed data; the decoder's own error is kept as `cause`. */
  | "CORRUPT_IMAGE"
  /** The input, or an output that cannot be made to fit, is larger than a byte limit. */
  | "INPUT_TOO_LARGE"
  /** The header declares more pixels than `maxInputPixels`; refused before any pixel buffer is allocated. */
  | "TOO_MANY_PIXELS"
  /** An option is out of range or of the wrong type (e.g. `jpegQuality: 0`, `maxWidth: -5`, an unknown `filter`). */
  | "INVALID_OPTION"
  /** A path was given where the runtime has no file system (`node:fs/promises`): browsers, workerd. Pass bytes instead. */
  | "NO_FILE_SYSTEM";

/** The one error class pixfit throws. `code` is stable; `format` names the detected format when known. */
export class PixfitError extends Error {
  readonly code: ErrorCode;
  /** Format name ("png", "heic", ...) when the error concerns a detected format. */
  readonly format: string | undefined;

  constructor(code: ErrorCode, message: string, options: { cause?: unknown; format?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "PixfitError";
    this.code = code;
    this.format = options.format;
  }
}

/** True when `err` is a {@link PixfitError}, optionally with the given code. */
export function isPixfitError(err: unknown, code?: ErrorCode): err is PixfitError {
  return err instanceof PixfitError && (code === undefined || err.code === code);
}

/**
 * Wraps any decoder failure as `CORRUPT_IMAGE`, keeping the original as `cause`.
 * A {@link PixfitError} passes through unchanged.
 */
export function asCorrupt(err: unknown, format: string): PixfitError {
  if (err instanceof PixfitError) return err;
  const detail = err instanceof Error ? err.message : String(err);
  return new PixfitError("CORRUPT_IMAGE", `Corrupt or truncated ${format.toUpperCase()} data: ${detail}`, {
    cause: err,
    format,
  });
}
