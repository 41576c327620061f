/** EXIF orientation, read from a TIFF-structured EXIF block (CIPA DC-008 / TIFF 6.0 tag 0x0112). */
import { u16be, u16le, u32be, u32le, hasBytes } from "./bytes.js";

/**
 * Reads the Orientation tag (0x0112) from IFD0 of an EXIF block.
 * `tiff` starts at the TIFF header ("II*\0" or "MM\0*"); a leading "Exif\0\0" is skipped.
 * Returns 1–8, or 1 when the tag is absent, out of range or the block is malformed (never throws).
 */
export function readExifOrientation(tiff: Uint8Array): number {
  let b = tiff;
  if (hasBytes(b, 0, "Exif\0\0")) b = b.subarray(6);
  const le = hasBytes(b, 0, "II*\0");
  if (!le && !hasBytes(b, 0, "MM\0*")) return 1;
  const r16 = le ? u16le : u16be;
  const r32 = le ? u32le : u32be;
  const ifd = r32(b, 4);
  if (ifd < 8 || ifd + 2 > b.length) return 1;
  const count = r16(b, ifd);
  for (let i = 0; i < count; i++) {
    const e = ifd + 2 + i * 12;
    if (e + 12 > b.length) return 1;
    if (r16(b, e) === 0x0112) {
      const type = r16(b, e + 2);
      const v = type === 3 ? r16(b, e + 8) : type === 4 ? r32(b, e + 8) : 0;
      return v >= 1 && v <= 8 ? v : 1;
    }
  }
  return 1;
}
