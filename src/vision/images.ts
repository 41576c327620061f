/**
 * Local image files → data URLs an OpenAI-compatible Chat Completions endpoint accepts.
 * Node, Bun and Deno only (reads the file system through a dynamic `import("node:fs/promises")`);
 * the rest of `pixfit/vision` runs anywhere `fetch` does.
 */
import { encodeBase64 } from "../base64.js";
import { PixfitError } from "../errors.js";
import { prepare, prepareDefaults } from "../prepare.js";
import { targets, type Target } from "../targets.js";
import { VisionError } from "./errors.js";

/**
 * Where images go by default: `targets.openaiCompatible`, pixfit's conservative preset for OpenAI-compatible Chat
 * Completions servers (PNG and JPEG only, ≤ 2000 × 2000 px, ≤ 5 MiB raw per image, ≤ 20 images and ≤ 20 MiB per
 * request; see `src/targets.ts`). Other formats are converted by `prepare`: BMP and GIF become PNG, WEBP becomes JPEG.
 * Pass another target (e.g. `defineTarget(targets.openaiCompatible, { accepts: [...] })`) for an endpoint that
 * documents larger limits.
 */
export const defaultVisionTarget: Target = targets.openaiCompatible;

/** What the tool reports about one image: no image data. */
export interface VisionImageMeta {
  /** The path as the caller gave it. */
  path: string;
  /** Media type of the bytes sent (after any re-encoding). */
  mediaType: string;
  /** Pixels, as sent. */
  width: number;
  /** Pixels, as sent. */
  height: number;
  /** Bytes of the image sent (before base64). */
  byteLength: number;
}

/** One loaded image: the data URL to send and its metadata. */
export interface LoadedImage {
  /** `data:<mediaType>;base64,<...>`. */
  dataUrl: string;
  meta: VisionImageMeta;
}

/** Options for {@link loadAndValidateImages}. */
export interface LoadImagesOptions {
  /** Format, dimension and byte limits; default {@link defaultVisionTarget}. */
  target?: Target;
  /** Bytes: files larger than this are refused before they are read. Default 20 MiB (`prepareDefaults.maxInputBytes`). */
  maxInputBytes?: number;
  /** Checked before each file; when it fires, loading stops with category `aborted`. */
  signal?: AbortSignal;
}

/**
 * Loads local images for a vision request. Each path is resolved against `cwd`, checked, read, and run through
 * {@link prepare} with `target` (EXIF orientation applied; converted to a format the target accepts; scaled down to
 * its dimension limit and, if needed, further until it fits its per-image byte limit). Files are read one after
 * another, in order.
 *
 * Node, Bun and Deno only: uses `node:fs/promises` and `node:path` through dynamic imports.
 *
 * @param paths file paths, absolute or relative to `cwd`.
 * @param cwd the directory relative paths are resolved against.
 * @returns one {@link LoadedImage} per path, in the same order.
 * @throws VisionError category `image` naming the path when a file is missing, a directory, empty, unreadable, larger
 * than `maxInputBytes`, not an image the target takes or pixfit can convert (PDF, `UNSUPPORTED_FORMAT`), corrupt, has
 * too many pixels, or cannot be brought under the per-image byte limit (the pixfit error is kept as `cause`); also
 * when there are more images than `target.request.maxImages` or their data URLs together exceed
 * `target.request.maxBytes` (checked as they load). Category `aborted` when `signal` fires.
 */
export async function loadAndValidateImages(paths: readonly string[], cwd: string, options: LoadImagesOptions = {}): Promise<LoadedImage[]> {
  const target = options.target ?? defaultVisionTarget;
  const maxInputBytes = options.maxInputBytes ?? prepareDefaults.maxInputBytes;
  if (paths.length > target.request.maxImages)
    throw new VisionError("image", `${paths.length} images were given; ${target.name} takes at most ${target.request.maxImages} per request.`);
  const { readFile, stat } = await import("node:fs/promises");
  const { resolve } = await import("node:path");
  const out: LoadedImage[] = [];
  let requestBytes = 0;
  for (const path of paths) {
    if (options.signal?.aborted) throw new VisionError("aborted", "The vision call was aborted while loading images.");
    const absolute = resolve(cwd, path);
    const where = absolute === path ? path : `${path} (${absolute})`;

    let size: number;
    try {
      const info = await stat(absolute);
      if (info.isDirectory()) throw imageError(path, `${where} is a directory, not an image file.`);
      if (!info.isFile()) throw imageError(path, `${where} is not a regular file.`);
      size = info.size;
    } catch (err) {
      if (err instanceof VisionError) throw err;
      throw imageError(path, fsMessage(err, where), err);
    }
    if (size === 0) throw imageError(path, `${where} is empty (0 bytes).`);
    if (size > maxInputBytes) throw imageError(path, `${where} is ${size} bytes; the limit is ${maxInputBytes} bytes.`);

    let bytes: Uint8Array;
    try {
      const buf = await readFile(absolute);
      bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    } catch (err) {
      throw imageError(path, fsMessage(err, where), err);
    }

    let media;
    try {
      media = await prepare(bytes, { target, maxInputBytes });
    } catch (err) {
      if (err instanceof PixfitError) throw imageError(path, `${where}: ${err.message} (${err.code})`, err);
      throw imageError(path, `${where} could not be prepared: ${err instanceof Error ? err.message : String(err)}`, err);
    }
    const dataUrl = `data:${media.mediaType};base64,${encodeBase64(media.bytes)}`;
    requestBytes += dataUrl.length;
    if (requestBytes > target.request.maxBytes)
      throw imageError(path, `With ${where} the images come to ${requestBytes} bytes of data URLs; ${target.name} takes at most ${target.request.maxBytes} bytes per request.`);
    out.push({ dataUrl, meta: { path, mediaType: media.mediaType, width: media.width, height: media.height, byteLength: media.bytes.length } });
  }
  return out;
}

function imageError(path: string, message: string, cause?: unknown): VisionError {
  return new VisionError("image", message, { path, cause });
}

function fsMessage(err: unknown, where: string): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (code === "ENOENT") return `${where} does not exist.`;
  if (code === "EACCES" || code === "EPERM") return `${where} cannot be read (permission denied).`;
  if (code === "EISDIR") return `${where} is a directory, not an image file.`;
  if (code === "ENOTDIR") return `${where} does not exist (a parent is not a directory).`;
  return `${where} cannot be read: ${err instanceof Error ? err.message : String(err)}`;
}
