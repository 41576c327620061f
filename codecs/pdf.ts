/**
 * PDF: recognised, never decoded. Prepared PDFs pass through byte for byte.
 * Signature: "%PDF-" at offset 0 (ISO 32000-1 §7.5.2, file header).
 */
import { hasBytes } from "../src/bytes.js";
import type { Codec } from "../src/types.js";

export const pdf: Codec = {
  format: "pdf",
  mediaType: "application/pdf",
  kind: "document",
  sniff: (b) => hasBytes(b, 0, "%PDF-"),
};
