/** Header probe: size, alpha and EXIF orientation without decoding pixels. */
import { identify } from "./detect.js";
import { asCorrupt } from "./errors.js";
import type { Codec, ImageInfo, MediaType } from "./types.js";

/**
 * Reads an image's header: `{ mediaType, width, height, hasAlpha, orientation }` with width and height in
 * pixels as stored (before EXIF orientation) and orientation 1–8. Reads only the header; cost does not grow with
 * the pixel count. Documents (PDF) have width and height 0.
 * @throws PixfitError `EMPTY_INPUT`, `UNSUPPORTED_FORMAT`, `CORRUPT_IMAGE` (unreadable header).
 */
export function probe(bytes: Uint8Array): ImageInfo & { mediaType: MediaType } {
  const codec = identify(bytes);
  if (!codec.probe) return { mediaType: codec.mediaType, width: 0, height: 0, hasAlpha: false, orientation: 1 };
  return { mediaType: codec.mediaType, ...probeWith(codec, bytes) };
}

/** `codec.probe(bytes)` with any failure reported as `CORRUPT_IMAGE`. Internal; the codec must have a probe. */
export function probeWith(codec: Codec, bytes: Uint8Array): ImageInfo {
  try {
    return codec.probe!(bytes);
  } catch (err) {
    throw asCorrupt(err, codec.format);
  }
}
