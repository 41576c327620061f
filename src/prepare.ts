/**
 * The main job: bytes in, bytes a model API accepts out.
 * detect → probe → (pass through | decode → orient → resize → encode).
 */
import { codecByMediaType } from "../codecs/index.js";
import { identify } from "./detect.js";
import { probeWith } from "./probe.js";
import { PixfitError, asCorrupt } from "./errors.js";
import { applyOrientation, orientedSize } from "./orient.js";
import { fitWithin, resize, resizeFilters, type ResizeFilter } from "./resize.js";
import type { Codec, ImageInfo, MediaType, Raster } from "./types.js";
import { countedBytes, nativeSize, type Target } from "./targets.js";

/** Defaults for {@link PrepareOptions}. Plain data, so callers can read them. */
export const prepareDefaults = {
  /** Pixels. 2000 × 2000 keeps an image valid in an Anthropic request with more than 20 images (Anthropic vision docs, 2025-2026). */
  maxWidth: 2000,
  /** Pixels. */
  maxHeight: 2000,
  /** JPEG quality 1–100 used when pixfit re-encodes a JPEG (or a WEBP, which becomes JPEG). */
  jpegQuality: 80,
  /** Resampling filter: Mitchell-Netravali, B = C = 1/3. */
  filter: "mitchell" as ResizeFilter,
  /** Bytes: 20 MiB. Larger inputs are refused before they are read further. */
  maxInputBytes: 20 * 1024 * 1024,
  /** Pixels (width × height as the header declares): 100 million; checked before any pixel buffer is allocated. */
  maxInputPixels: 100_000_000,
  /**
   * Pixels of the raster the decoder will allocate (after JPEG shrink-on-load): no limit by default, except in
   * Cloudflare Workers (see {@link workerdMaxDecodePixels}).
   */
  maxDecodePixels: Infinity,
} as const;

/**
 * The default `maxDecodePixels` in Cloudflare Workers (`navigator.userAgent === "Cloudflare-Workers"`): 6 million
 * pixels. A Worker isolate has 128 MB; measured in workerd (scripts/runtimes/measure-workerd-memory.mjs), a prepare
 * costs 13–16 bytes per decoded pixel (6 MP decoded: 76 MB), so above this an image is refused with `TOO_MANY_PIXELS`
 * instead of aborting the isolate. JPEGs that shrink on load count at their reduced size: a 24 MP photo fitted to
 * 2000 × 2000 is decoded at 1/2 scale (6 MP) and fits.
 */
export const workerdMaxDecodePixels = 6_000_000;

const inWorkerd = typeof navigator !== "undefined" && (navigator as { userAgent?: string }).userAgent === "Cloudflare-Workers";

/** Options for {@link prepare}. Every field is optional; defaults are {@link prepareDefaults}. */
export interface PrepareOptions {
  /** Largest output width in pixels (after EXIF orientation). With a `target`, never above the target's limit. */
  maxWidth?: number;
  /** Largest output height in pixels (after EXIF orientation). With a `target`, never above the target's limit. */
  maxHeight?: number;
  /** JPEG quality 1–100 for re-encoded JPEG output. */
  jpegQuality?: number;
  /** Resampling filter. */
  filter?: ResizeFilter;
  /** Refuse inputs larger than this many bytes with `INPUT_TOO_LARGE`. */
  maxInputBytes?: number;
  /** Refuse images whose header declares more than this many pixels with `TOO_MANY_PIXELS`. */
  maxInputPixels?: number;
  /**
   * Refuse with `TOO_MANY_PIXELS`, before decoding, when the raster the decoder would allocate (after JPEG
   * shrink-on-load) has more pixels than this. Bounds memory: peak ≈ 13–16 bytes per decoded pixel. Default no limit;
   * {@link workerdMaxDecodePixels} in Cloudflare Workers.
   */
  maxDecodePixels?: number;
  /**
   * A model-API preset (see `targets`). With a target, the output is a format it accepts, within its dimension and
   * byte limits; `maxWidth`/`maxHeight` default to the target's (capped by its many-image rule unless
   * `manyImageSafe` is false) instead of 2000 × 2000.
   */
  target?: Target;
  /**
   * `"limit"` (default): resize only as far as the limits require. `"native"`: resize to the largest size the target's
   * model keeps without downscaling it itself (`nativeSize`), so no bytes are spent on pixels the model throws away and
   * the image is resampled once. Needs a `target` with a `vision` rule; otherwise the same as `"limit"`.
   */
  size?: "limit" | "native";
  /** With a target that has a many-image rule (Anthropic: > 20 images → 2000 × 2000 px), stay within it. Default true. */
  manyImageSafe?: boolean;
}

/** The result of {@link prepare}. */
export interface PreparedMedia {
  /** Media type of `bytes`, detected from its signature. */
  mediaType: MediaType;
  /** The output file. For a pass-through this is the very input array. */
  bytes: Uint8Array;
  /** Pixels; 0 for documents (PDF), which have no pixel size. */
  width: number;
  /** Pixels; 0 for documents. */
  height: number;
  /** True when pixels were resampled. */
  resized: boolean;
  /** True when the output media type differs from the input's (WEBP → JPEG). */
  transcoded: boolean;
  /** The EXIF orientation (1–8) that was applied to the pixels; 1 when none. */
  orientation: number;
  /** The input as detected. */
  original: { mediaType: MediaType; width: number; height: number; byteLength: number };
}

/**
 * Makes an image or PDF ready for a model API.
 *
 * - empty input → `EMPTY_INPUT`; more than `maxInputBytes` bytes → `INPUT_TOO_LARGE`;
 * - no recognised signature → `UNSUPPORTED_FORMAT` (the message names HEIC, AVIF, TIFF, SVG, ... when recognised);
 * - PDF → returned unchanged;
 * - a variant the header shows pixfit cannot decode (arithmetic-coded, lossless, 12-bit JPEG, JPEG-LS) →
 *   `UNSUPPORTED_FORMAT`, even when it would fit;
 * - an image whose header says it fits in `maxWidth` × `maxHeight` and has EXIF orientation 1 (or none)
 *   → returned byte for byte, without decoding;
 * - otherwise decoded to RGBA, turned upright per EXIF orientation, resized to fit (aspect ratio kept,
 *   never enlarged) and re-encoded in the same format; WEBP is re-encoded as JPEG.
 *
 * With `options.target` (a preset from `targets`):
 * - a PDF the target does not accept → `UNSUPPORTED_FORMAT`; a PDF over the target's document limit → `INPUT_TOO_LARGE`;
 * - an image format the target does not accept is transcoded: lossless inputs (PNG, GIF, BMP) become PNG (JPEG only if
 *   the target takes no PNG), JPEG and WEBP become JPEG (PNG if the target takes no JPEG);
 * - the size limit is the target's `image.maxWidth` × `image.maxHeight`, capped by its many-image rule unless
 *   `manyImageSafe: false`; with `size: "native"`, also the model's native size (`nativeSize`);
 * - the byte limit is the target's `image.maxBytes` (raw or base64 bytes as it counts them): a JPEG output is
 *   re-encoded at quality 80 → 70 → 55 → 40, then scaled by 0.75 at a time (at quality 40); a PNG output is scaled by
 *   0.75 at a time; if nothing fits → `INPUT_TOO_LARGE` naming the limit;
 * - pass-through (byte for byte, no decode) still applies when the format is accepted, the size fits, the orientation is
 *   1 and the bytes fit.
 *
 * A pass-through does not decode, so it does not prove the pixel data intact: a truncated file that fits comes back as
 * it is (`toParts` verifies such files by decoding them once; see its `verify` option).
 *
 * @param bytes the file, as a `Uint8Array` (never modified).
 * @throws PixfitError `EMPTY_INPUT`, `INPUT_TOO_LARGE`, `UNSUPPORTED_FORMAT`, `CORRUPT_IMAGE`, `TOO_MANY_PIXELS` (header
 * over `maxInputPixels`, or the raster to decode over `maxDecodePixels`);
 * `INVALID_OPTION` for an option out of range (sizes and limits must be positive integers, `maxWidth`/`maxHeight`
 * may be `Infinity`; `jpegQuality` an integer 1–100; `filter` one of the {@link ResizeFilter} names).
 */
export async function prepare(bytes: Uint8Array, options: PrepareOptions = {}): Promise<PreparedMedia> {
  const o = { ...prepareDefaults, ...(inWorkerd ? { maxDecodePixels: workerdMaxDecodePixels } : {}), ...stripUndefined(options) };
  checkOptions(o);
  if (bytes.length > o.maxInputBytes)
    throw new PixfitError("INPUT_TOO_LARGE", `The input is ${bytes.length} bytes; the limit (maxInputBytes) is ${o.maxInputBytes} bytes.`);

  const codec = identify(bytes);
  const byteLength = bytes.length;
  const target = options.target;
  if (codec.kind === "document" || !codec.probe || !codec.decode) {
    if (target) checkDocument(codec, byteLength, target);
    const original = { mediaType: codec.mediaType, width: 0, height: 0, byteLength };
    return { mediaType: codec.mediaType, bytes, width: 0, height: 0, resized: false, transcoded: false, orientation: 1, original };
  }

  const info = probeWith(codec, bytes);
  if (info.unsupported) throw new PixfitError("UNSUPPORTED_FORMAT", info.unsupported, { format: codec.format });
  checkPixels(info, o.maxInputPixels, codec.format);
  const original = { mediaType: codec.mediaType, width: info.width, height: info.height, byteLength };
  const upright = orientedSize(info.width, info.height, info.orientation);
  const box = target ? targetBox(target, options) : { maxWidth: o.maxWidth, maxHeight: o.maxHeight };
  let size = fitWithin(upright.width, upright.height, box.maxWidth, box.maxHeight);
  if (target && options.size === "native") size = nativeSize(size.width, size.height, target.vision);
  const fits = size.width === upright.width && size.height === upright.height;
  const accepted = !target || target.accepts.includes(codec.mediaType);
  const bytesFit = !target || countedBytes(byteLength, target.image.countsBase64) <= target.image.maxBytes;
  if (fits && accepted && bytesFit && info.orientation === 1) {
    return { mediaType: codec.mediaType, bytes, width: info.width, height: info.height, resized: false, transcoded: false, orientation: 1, original };
  }

  let raster: Raster;
  try {
    // Shrink-on-load: the decoder may return a smaller raster (JPEG: a 1/2, 1/4 or 1/8 DCT-domain decode), never
    // smaller than the output size. The hint is in stored orientation, before EXIF turns the picture.
    const swap = info.orientation >= 5;
    const targetWidth = swap ? size.height : size.width;
    const targetHeight = swap ? size.width : size.height;
    const decoded = codec.decodedSize ? codec.decodedSize(info, targetWidth, targetHeight) : info;
    if (decoded.width * decoded.height > o.maxDecodePixels)
      throw new PixfitError(
        "TOO_MANY_PIXELS",
        `Decoding this ${codec.format.toUpperCase()} needs a ${decoded.width} × ${decoded.height} raster; the limit (maxDecodePixels) is ${o.maxDecodePixels} pixels.`,
        { format: codec.format },
      );
    raster = await codec.decode(bytes, { maxPixels: o.maxInputPixels, targetWidth, targetHeight });
  } catch (err) {
    throw asCorrupt(err, codec.format);
  }
  raster = applyOrientation(raster, info.orientation);
  const upr = raster;
  if (size.width !== raster.width || size.height !== raster.height) raster = await resize(raster, size.width, size.height, { filter: o.filter });

  const out = target ? targetCodec(codec, target) : outputCodec(codec);
  let encoded = await out.encode!(raster, { quality: o.jpegQuality });
  if (target) {
    const fitted = await fitBytes(encoded, raster, upr, out, target, o.jpegQuality, o.filter);
    encoded = fitted.bytes;
    raster = fitted.raster;
  }
  return {
    mediaType: out.mediaType,
    bytes: encoded,
    width: raster.width,
    height: raster.height,
    resized: raster.width !== upright.width || raster.height !== upright.height,
    transcoded: out.mediaType !== codec.mediaType,
    orientation: info.orientation,
    original,
  };
}

/** The JPEG qualities tried, in order, when an output is over a target's byte limit (issue 4). */
export const jpegQualitySteps: readonly number[] = [80, 70, 55, 40];

/** Factor applied to width and height per step once quality steps are exhausted. */
const SCALE_STEP = 0.75;

/**
 * Largest output size for `target`: `maxWidth`/`maxHeight` when given, else its many-image rule (unless opted out),
 * never above the target's own dimension limit.
 */
function targetBox(target: Target, options: PrepareOptions): { maxWidth: number; maxHeight: number } {
  const many = options.manyImageSafe !== false ? target.manyImages : null;
  return {
    maxWidth: Math.min(target.image.maxWidth, options.maxWidth ?? (many ? many.maxWidth : Infinity)),
    maxHeight: Math.min(target.image.maxHeight, options.maxHeight ?? (many ? many.maxHeight : Infinity)),
  };
}

/**
 * A target's rules for a document that passes through: its media type accepted, and its size (raw or base64 bytes, as
 * the target counts them) within `target.document.maxBytes`. Also used by `toParts` on a PDF's file size before the
 * file is streamed. @throws PixfitError `UNSUPPORTED_FORMAT`, `INPUT_TOO_LARGE`.
 */
export function checkDocument(codec: Codec, byteLength: number, target: Target): void {
  if (!target.accepts.includes(codec.mediaType) || !target.document)
    throw new PixfitError("UNSUPPORTED_FORMAT", `${target.name} does not accept ${codec.mediaType} documents.`, { format: codec.format });
  const counted = countedBytes(byteLength, target.document.countsBase64);
  if (counted > target.document.maxBytes)
    throw new PixfitError(
      "INPUT_TOO_LARGE",
      `The ${codec.format.toUpperCase()} is ${counted} bytes${target.document.countsBase64 ? " of base64" : ""}; ${target.name} accepts at most ${target.document.maxBytes} bytes per document.`,
      { format: codec.format },
    );
}

/** The output codec for `target`: the input's when accepted and encodable, else the closest accepted format. */
function targetCodec(codec: Codec, target: Target): Codec {
  if (target.accepts.includes(codec.mediaType) && codec.encode) return codec;
  const lossless = codec.mediaType === "image/png" || codec.mediaType === "image/gif" || codec.mediaType === "image/bmp";
  const order: MediaType[] = lossless ? ["image/png", "image/jpeg"] : ["image/jpeg", "image/png"];
  for (const m of order) if (target.accepts.includes(m)) return codecByMediaType(m)!;
  throw new PixfitError("UNSUPPORTED_FORMAT", `${target.name} accepts neither PNG nor JPEG, so a ${codec.format.toUpperCase()} cannot be converted for it.`, { format: codec.format });
}

/**
 * Re-encodes until the output fits `target.image.maxBytes`: JPEG quality steps, then 0.75 scale steps resampled from
 * the upright full-size raster `upr` (so the image is resampled once per attempt, never twice).
 */
async function fitBytes(
  encoded: Uint8Array, raster: Raster, upr: Raster, out: Codec, target: Target, quality: number, filter: ResizeFilter,
): Promise<{ bytes: Uint8Array; raster: Raster }> {
  const limit = target.image.maxBytes;
  const counted = (b: Uint8Array) => countedBytes(b.length, target.image.countsBase64);
  if (counted(encoded) <= limit) return { bytes: encoded, raster };
  const isJpeg = out.mediaType === "image/jpeg";
  let q = quality;
  if (isJpeg) {
    for (const step of jpegQualitySteps) {
      if (step >= q) continue;
      q = step;
      encoded = await out.encode!(raster, { quality: q });
      if (counted(encoded) <= limit) return { bytes: encoded, raster };
    }
  }
  let { width, height } = raster;
  for (let i = 0; i < 40; i++) {
    const w = Math.floor(width * SCALE_STEP);
    const h = Math.floor(height * SCALE_STEP);
    if (w < 1 || h < 1) break;
    width = w;
    height = h;
    raster = await resize(upr, width, height, { filter });
    encoded = await out.encode!(raster, { quality: q });
    if (counted(encoded) <= limit) return { bytes: encoded, raster };
  }
  throw new PixfitError(
    "INPUT_TOO_LARGE",
    `The image cannot be made to fit ${target.name}'s per-image limit of ${limit} bytes${target.image.countsBase64 ? " of base64" : ""}` +
      ` (last attempt: ${raster.width} × ${raster.height} ${out.format.toUpperCase()}, ${counted(encoded)} bytes).`,
    { format: out.format },
  );
}

function checkPixels(info: ImageInfo, maxPixels: number, format: string): void {
  if (info.width < 1 || info.height < 1)
    throw new PixfitError("CORRUPT_IMAGE", `The ${format.toUpperCase()} header declares an empty image (${info.width} × ${info.height}).`, { format });
  if (info.width * info.height > maxPixels)
    throw new PixfitError("TOO_MANY_PIXELS", `The ${format.toUpperCase()} header declares ${info.width} × ${info.height} = ${info.width * info.height} pixels; the limit (maxInputPixels) is ${maxPixels}.`, { format });
}

/** The codec that re-encodes a decoded image: the same one when it has an encoder. */
function outputCodec(codec: Codec): Codec {
  if (codec.encode) return codec;
  // TODO(webp-alpha): WEBP has no encoder in pixfit's codec set, so it falls back to JPEG q80. A WEBP with
  // alpha should perhaps become PNG instead, since JPEG flattens transparency.
  return codecByMediaType("image/jpeg")!;
}

function checkOptions(o: { maxWidth: number; maxHeight: number; jpegQuality: number; filter: ResizeFilter; maxInputBytes: number; maxInputPixels: number; maxDecodePixels: number }): void {
  const bad = (name: string, want: string, v: unknown) => new PixfitError("INVALID_OPTION", `${name} must be ${want}; got ${String(v)}.`);
  for (const name of ["maxWidth", "maxHeight"] as const)
    if (!(o[name] === Infinity || (Number.isInteger(o[name]) && o[name] >= 1))) throw bad(name, "a positive whole number of pixels or Infinity", o[name]);
  for (const name of ["maxInputBytes", "maxInputPixels", "maxDecodePixels"] as const)
    if (!(o[name] === Infinity || (Number.isInteger(o[name]) && o[name] >= 1))) throw bad(name, "a positive whole number or Infinity", o[name]);
  if (!Number.isInteger(o.jpegQuality) || o.jpegQuality < 1 || o.jpegQuality > 100) throw bad("jpegQuality", "a whole number from 1 to 100", o.jpegQuality);
  if (!resizeFilters.includes(o.filter)) throw bad("filter", `one of ${resizeFilters.join(", ")}`, o.filter);
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
