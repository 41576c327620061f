/**
 * The one error type of `pixfit/vision`. Every failure the vision tool, client, config loader or image loader
 * reports is a {@link VisionError} with a stable `category`; messages are for the agent and its user and may change.
 */

/**
 * Stable error categories.
 * - `config`: an environment variable is missing or does not parse (names the variable);
 * - `params`: the tool's parameters do not match its schema (empty prompt, no images, unknown `detail`);
 * - `image`: a path is missing, a directory, unreadable, not an image pixfit reads, or too large (names the path);
 * - `http`: the endpoint answered with a non-2xx status (`status` set), or could not be reached (`status` undefined);
 * - `timeout`: `VISION_TIMEOUT_MS` passed before the full answer arrived;
 * - `aborted`: the caller's `AbortSignal` fired;
 * - `response`: a 2xx answer that carries no usable text (not JSON, no choices, empty content);
 * - `unexpected`: anything else, wrapped without its stack trace (the original is kept as `cause`).
 */
export type VisionErrorCategory = "config" | "params" | "image" | "http" | "timeout" | "aborted" | "response" | "unexpected";

/** Error thrown by everything in `pixfit/vision`. Messages never contain the API key. */
export class VisionError extends Error {
  readonly category: VisionErrorCategory;
  /** HTTP status for `http` errors with an answer; undefined otherwise. */
  readonly status: number | undefined;
  /** The image path as given, for `image` errors. */
  readonly path: string | undefined;

  constructor(category: VisionErrorCategory, message: string, options: { cause?: unknown; status?: number; path?: string } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "VisionError";
    this.category = category;
    this.status = options.status;
    this.path = options.path;
  }
}

/** True when `err` is a {@link VisionError}, optionally of the given category. */
export function isVisionError(err: unknown, category?: VisionErrorCategory): err is VisionError {
  return err instanceof VisionError && (category === undefined || err.category === category);
}

/**
 * Replaces every occurrence of `secret` in `text` with `[redacted]`. Used on every message built from text the
 * endpoint or a runtime returned, since some APIs echo the key they were given ("Incorrect API key provided: ...").
 * An empty or very short secret (under 4 characters) is left alone, so redaction cannot shred ordinary text.
 */
export function redact(text: string, secret: string | undefined): string {
  if (!secret || secret.length < 4) return text;
  return text.split(secret).join("[redacted]");
}

/**
 * Wraps anything that is not a {@link VisionError} as category `unexpected`: the message keeps the error's name and
 * first line of its message (no stack trace), with `secret` redacted; the original stays as `cause`.
 */
export function asVisionError(err: unknown, secret?: string): VisionError {
  if (err instanceof VisionError) return err;
  const name = err instanceof Error ? err.name : typeof err;
  const raw = err instanceof Error ? err.message : String(err);
  const firstLine = raw.split("\n")[0].slice(0, 300);
  return new VisionError("unexpected", redact(`Unexpected error in the vision tool (${name}): ${firstLine}`, secret), { cause: err });
}
