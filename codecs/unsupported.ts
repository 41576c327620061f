/**
 * Formats pixfit recognises by signature only, so that its error can name them
 * ("HEIC images are not supported") instead of saying "unknown data".
 */
import { ascii, hasBytes, u32be } from "../src/bytes.js";
import type { UnsupportedFormat } from "../src/types.js";

/** ISO/IEC 14496-12 file type box: major brand and compatible brands, or [] when `b` has none. */
function isoBrands(b: Uint8Array): string[] {
  if (!hasBytes(b, 4, "ftyp")) return [];
  const size = u32be(b, 0);
  if (size < 16) return [];
  const end = Math.min(size, b.length, 256);
  const brands = [ascii(b, 8, 4)];
  for (let o = 16; o + 4 <= end; o += 4) brands.push(ascii(b, o, 4));
  return brands;
}

const HEIF_BRANDS = ["heic", "heix", "hevc", "hevx", "heim", "heis", "hevm", "hevs", "mif1", "msf1", "mif2"];

export const unsupportedFormats: readonly UnsupportedFormat[] = [
  { name: "AVIF", mediaType: "image/avif", sniff: (b) => { const br = isoBrands(b); return br[0] === "avif" || br[0] === "avis" || (br.includes("avif") && !br.some((x) => x.startsWith("he"))); } },
  { name: "HEIC", mediaType: "image/heic", sniff: (b) => isoBrands(b).some((x) => HEIF_BRANDS.includes(x)) },
  { name: "TIFF", mediaType: "image/tiff", sniff: (b) => hasBytes(b, 0, "II*\0") || hasBytes(b, 0, "MM\0*") || hasBytes(b, 0, "II+\0") || hasBytes(b, 0, "MM\0+") },
  { name: "JPEG XL", mediaType: "image/jxl", sniff: (b) => hasBytes(b, 0, [0xff, 0x0a]) || hasBytes(b, 0, [0, 0, 0, 0x0c, 0x4a, 0x58, 0x4c, 0x20, 0x0d, 0x0a, 0x87, 0x0a]) },
  { name: "JPEG 2000", mediaType: "image/jp2", sniff: (b) => hasBytes(b, 0, [0, 0, 0, 0x0c, 0x6a, 0x50, 0x20, 0x20, 0x0d, 0x0a, 0x87, 0x0a]) || hasBytes(b, 0, [0xff, 0x4f, 0xff, 0x51]) },
  { name: "ICO", mediaType: "image/x-icon", sniff: (b) => hasBytes(b, 0, [0, 0, 1, 0]) && b.length >= 6 && (b[4] | b[5]) !== 0 },
  { name: "CUR", mediaType: "image/x-icon", sniff: (b) => hasBytes(b, 0, [0, 0, 2, 0]) && b.length >= 6 && (b[4] | b[5]) !== 0 },
  { name: "PSD", mediaType: "image/vnd.adobe.photoshop", sniff: (b) => hasBytes(b, 0, "8BPS") },
  { name: "QOI", mediaType: "image/qoi", sniff: (b) => hasBytes(b, 0, "qoif") },
  { name: "SVG", mediaType: "image/svg+xml", sniff: isSvg },
];

/** SVG is text: an optional BOM, XML declaration, comments or doctype, then an `<svg` element within the first 1 KiB. */
function isSvg(b: Uint8Array): boolean {
  let text = ascii(b, 0, 1024);
  if (text.startsWith("\xef\xbb\xbf")) text = text.slice(3);
  text = text.trimStart();
  if (!text.startsWith("<")) return false;
  return /<svg[\s>]/i.test(text) && (text.startsWith("<svg") || text.startsWith("<?xml") || text.startsWith("<!"));
}
