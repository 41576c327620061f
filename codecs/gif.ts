/** GIF codec. STUB: probe/decode/encode to be written. */
import { hasBytes } from "../src/bytes.js";
import type { Codec } from "../src/types.js";

export const gif: Codec = {
  format: "gif",
  mediaType: "image/gif",
  kind: "image",
  sniff: (b) => hasBytes(b, 0, "GIF87a") || hasBytes(b, 0, "GIF89a"),
};
