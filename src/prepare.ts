/**
 * The main job: bytes in, bytes a model API accepts out.
 * detect → probe → (pass through | decode → orient → resize → encode).
 */
import { codecByMediaType } from "../codecs/index.js";
import { identify } from "./detect.js";
import { probeWith } from "./probe.js";
import { PixfitError, asCorrupt } from "./errors.js";
import { applyOrientation, orientedSize } from "./orient.js";
import { fitWithin, resize, type ResizeFilter } from "./resize.js";
import type { Codec, ImageInfo, MediaType, Raster } from "./types.js";

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
} as const;

/** Options for {@link prepare}. Every field is optional; defaults are {@link prepareDefaults}. */
export interface PrepareOptions {
  /** Largest output width in pixels (after EXIF orientation). */
  maxWidth?: number;
  /** Largest output height in pixels (after EXIF orientation). */
  maxHeight?: number;
  /** JPEG quality 1–100 for re-encoded JPEG output. */
  jpegQuality?: number;
  /** Resampling filter. */
  filter?: ResizeFilter;
  /** Refuse inputs larger than this many bytes with `INPUT_TOO_LARGE`. */
  maxInputBytes?: number;
  /** Refuse images whose header declares more than this many pixels with `TOO_MANY_PIXELS`. */
  maxInputPixels?: number;
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
 * - an image whose header says it fits in `maxWidth` × `maxHeight` and has EXIF orientation 1 (or none)
 *   → returned byte for byte, without decoding;
 * - otherwise decoded to RGBA, turned upright per EXIF orientation, resized to fit (aspect ratio kept,
 *   never enlarged) and re-encoded in the same format; WEBP is re-encoded as JPEG.
 *
 * @param bytes the file, as a `Uint8Array` (never modified).
 * @throws PixfitError `EMPTY_INPUT`, `INPUT_TOO_LARGE`, `UNSUPPORTED_FORMAT`, `CORRUPT_IMAGE`, `TOO_MANY_PIXELS`.
 */
export async function prepare(bytes: Uint8Array, options: PrepareOptions = {}): Promise<PreparedMedia> {
  const o = { ...prepareDefaults, ...stripUndefined(options) };
  if (bytes.length > o.maxInputBytes)
    throw new PixfitError("INPUT_TOO_LARGE", `The input is ${bytes.length} bytes; the limit (maxInputBytes) is ${o.maxInputBytes} bytes.`);

  const codec = identify(bytes);
  const byteLength = bytes.length;
  if (codec.kind === "document" || !codec.probe || !codec.decode) {
    const original = { mediaType: codec.mediaType, width: 0, height: 0, byteLength };
    return { mediaType: codec.mediaType, bytes, width: 0, height: 0, resized: false, transcoded: false, orientation: 1, original };
  }

  const info = probeWith(codec, bytes);
  checkPixels(info, o.maxInputPixels, codec.format);
  const original = { mediaType: codec.mediaType, width: info.width, height: info.height, byteLength };
  const upright = orientedSize(info.width, info.height, info.orientation);
  const fits = upright.width <= o.maxWidth && upright.height <= o.maxHeight;
  if (fits && info.orientation === 1) {
    return { mediaType: codec.mediaType, bytes, width: info.width, height: info.height, resized: false, transcoded: false, orientation: 1, original };
  }

  let raster: Raster;
  try {
    raster = await codec.decode(bytes, { maxPixels: o.maxInputPixels });
  } catch (err) {
    throw asCorrupt(err, codec.format);
  }
  raster = applyOrientation(raster, info.orientation);
  const size = fitWithin(raster.width, raster.height, o.maxWidth, o.maxHeight);
  const resized = size.width !== raster.width || size.height !== raster.height;
  if (resized) raster = await resize(raster, size.width, size.height, { filter: o.filter });

  const out = outputCodec(codec);
  const encoded = await out.encode!(raster, { quality: o.jpegQuality });
  return {
    mediaType: out.mediaType,
    bytes: encoded,
    width: raster.width,
    height: raster.height,
    resized,
    transcoded: out !== codec,
    orientation: info.orientation,
    original,
  };
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

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
