/** Format detection from magic bytes only; file names and declared media types are never trusted. */
import { codecFor, unsupportedFormats } from "../codecs/index.js";
import { PixfitError } from "./errors.js";
import type { Codec, MediaType, UnsupportedFormat } from "./types.js";

/**
 * The media type of `bytes` from its signature: `image/png`, `image/jpeg`, `image/gif`, `image/bmp`,
 * `image/webp` or `application/pdf`; `null` for anything else (including formats pixfit
 * recognises but does not handle; see {@link detectUnsupported}). Reads at most the first 1 KiB. Never throws.
 */
export function detect(bytes: Uint8Array): MediaType | null {
  return codecFor(bytes)?.mediaType ?? null;
}

/**
 * A known format that pixfit does not handle (HEIC/HEIF, AVIF, TIFF, SVG, ICO, JPEG XL, JPEG 2000, PSD, QOI),
 * named by signature so errors can say what the input is; `null` otherwise. Never throws.
 */
export function detectUnsupported(bytes: Uint8Array): Pick<UnsupportedFormat, "name" | "mediaType"> | null {
  const f = unsupportedFormats.find((u) => u.sniff(bytes));
  return f ? { name: f.name, mediaType: f.mediaType } : null;
}

/**
 * The registry entry for `bytes`.
 * @throws PixfitError `EMPTY_INPUT` for 0 bytes; `UNSUPPORTED_FORMAT` otherwise, naming a recognised but
 * unsupported format ("HEIC images are not supported ...") when there is one.
 */
export function identify(bytes: Uint8Array): Codec {
  if (bytes.length === 0) throw new PixfitError("EMPTY_INPUT", "The input is empty (0 bytes).");
  const codec = codecFor(bytes);
  if (codec) return codec;
  const known = detectUnsupported(bytes);
  if (known)
    throw new PixfitError("UNSUPPORTED_FORMAT", `${known.name} images are not supported (detected ${known.mediaType}); use PNG, JPEG, GIF, BMP, WEBP or PDF.`, { format: known.name.toLowerCase() });
  throw new PixfitError("UNSUPPORTED_FORMAT", "Unrecognised data: the bytes are not PNG, JPEG, GIF, BMP, WEBP or PDF.");
}
