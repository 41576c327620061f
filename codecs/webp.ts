/** WEBP codec. STUB: probe/decode/encode to be written. */
import { hasBytes } from "../src/bytes.js";
import type { Codec } from "../src/types.js";

export const webp: Codec = {
  format: "webp",
  mediaType: "image/webp",
  kind: "image",
  sniff: (b) => hasBytes(b, 0, "RIFF") && hasBytes(b, 8, "WEBP"),
};
