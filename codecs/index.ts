/**
 * The codec registry: one row per format, tried in order by signature.
 * Adding a format = one module in `codecs/` exporting a {@link Codec}, and one row here.
 */
import type { Codec } from "../src/types.js";
import { png } from "./png.js";
import { jpeg } from "./jpeg.js";
import { gif } from "./gif.js";
import { bmp } from "./bmp.js";
import { webp } from "./webp.js";
import { pdf } from "./pdf.js";

export { unsupportedFormats } from "./unsupported.js";

/** Every supported format, keyed by its signature test (`sniff`). */
export const codecs: readonly Codec[] = [png, jpeg, gif, webp, bmp, pdf];

/** The registry entry whose signature matches `bytes`, or undefined. */
export function codecFor(bytes: Uint8Array): Codec | undefined {
  for (const c of codecs) if (c.sniff(bytes)) return c;
  return undefined;
}

/** The registry entry for a media type, or undefined. */
export function codecByMediaType(mediaType: string): Codec | undefined {
  return codecs.find((c) => c.mediaType === mediaType);
}
