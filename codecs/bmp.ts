/** BMP codec. STUB: probe/decode/encode to be written. */
import { hasBytes } from "../src/bytes.js";
import type { Codec } from "../src/types.js";

export const bmp: Codec = {
  format: "bmp",
  mediaType: "image/bmp",
  kind: "image",
  sniff: (b) => hasBytes(b, 0, "BM") && b.length >= 18 && b[14] >= 12 && b[15] === 0 && b[16] === 0 && b[17] === 0,
};
