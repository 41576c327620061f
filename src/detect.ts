/** Format detection from magic bytes only; file names and declared media types are never trusted. */
import { codecFor, unsupportedFormats } from "../codecs/index.js";
import type { MediaType, UnsupportedFormat } from "./types.js";

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
