/** JPEG codec. STUB: probe/decode/encode to be written. */
import { hasBytes } from "../src/bytes.js";
import type { Codec } from "../src/types.js";

export const jpeg: Codec = {
  format: "jpeg",
  mediaType: "image/jpeg",
  kind: "image",
  sniff: (b) => hasBytes(b, 0, [0xff, 0xd8, 0xff]),
};
