/** PNG codec. STUB: probe/decode/encode to be written. */
import { hasBytes } from "../src/bytes.js";
import type { Codec } from "../src/types.js";

export const png: Codec = {
  format: "png",
  mediaType: "image/png",
  kind: "image",
  sniff: (b) => hasBytes(b, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
};
