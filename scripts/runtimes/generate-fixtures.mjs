/**
 * Writes test/runtimes/fixtures.js: the small images the runtime checks embed (base64) and the value
 * every check must produce. Run through `node scripts/test-runtimes.mjs --update` (Node + tsx, from source).
 *
 * Expected values come from pixfit in Node, except the PngSuite parity checks, whose RGBA hash comes from
 * ImageMagick 6 (/usr/bin/convert) decoding the same file; a file where pixfit and ImageMagick differ is
 * reported and the check keeps ImageMagick's value (so it fails until the decoder is fixed).
 * Fixtures are taken from /work/shared/corpus (or test/fixtures/corpus) and are all permissively licensed;
 * two are synthesized here (a JPEG with an EXIF orientation, a HEIC header) and one is a minimal PDF.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";

const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const corpus = existsSync("/work/shared/corpus/MANIFEST.tsv") ? "/work/shared/corpus" : join(root, "test/fixtures/corpus");
const out = join(root, "test/runtimes/fixtures.js");

const PNGSUITE = "PngSuite (Willem van Schaik): free to use, copy, modify, distribute";
const JPEGSUITE = "robert-ancell/jpegsuite JPEGs: CC0-1.0";
/** key → [corpus path | bytes, format, licence, flags] */
const list = [
  ["png/basn0g01", "png/pngsuite/basn0g01.png", "png", PNGSUITE, { parity: true }],
  ["png/basn0g02", "png/pngsuite/basn0g02.png", "png", PNGSUITE, { parity: true }],
  ["png/basn2c08", "png/pngsuite/basn2c08.png", "png", PNGSUITE, { parity: true }],
  ["png/basn3p04", "png/pngsuite/basn3p04.png", "png", PNGSUITE, { parity: true }],
  ["png/basn4a08", "png/pngsuite/basn4a08.png", "png", PNGSUITE, { parity: true }],
  ["png/basn6a08", "png/pngsuite/basn6a08.png", "png", PNGSUITE, { parity: true }],
  ["png/basi0g08", "png/pngsuite/basi0g08.png", "png", PNGSUITE, { parity: true }],
  ["png/tbrn2c08", "png/pngsuite/tbrn2c08.png", "png", PNGSUITE, { parity: true }],
  // 16-bit: pixfit keeps the high byte, ImageMagick rounds v × 255 / 65535 (PNG spec §13.12 allows both), so
  // this one is compared with Node, not ImageMagick.
  ["png/basn6a16", "png/pngsuite/basn6a16.png", "png", PNGSUITE, {}],
  ["jpeg/ycbcr-32x32", "jpeg/jpegsuite/baseline/32x32x8_ycbcr_2x2_1x1_1x1.jpg", "jpeg", JPEGSUITE, {}],
  ["jpeg/grayscale-32x32", "jpeg/jpegsuite/baseline/32x32x8_grayscale.jpg", "jpeg", JPEGSUITE, {}],
  ["gif/peterdn-static-transparent", "gif/peterdn/static_transparent.gif", "gif", "peterdn/gif-test-suite: BSD-2-Clause", {}],
  ["gif/image-rs-alpha", "gif/image-rs/simple/alpha_gif_a.gif", "gif", "image-rs/image: MIT OR Apache-2.0", {}],
  ["bmp/pal4", "bmp/bmpsuite/g/pal4.bmp", "bmp", "BMP Suite (Jason Summers) generated images: public domain", {}],
  ["bmp/pal8", "bmp/bmpsuite/g/pal8.bmp", "bmp", "BMP Suite (Jason Summers) generated images: public domain", {}],
  ["webp/simple-rgb", "webp/image-rs/lossy_images/simple-rgb.webp", "webp", "image-rs/image: MIT OR Apache-2.0", {}],
  ["webp/2-color-lossless", "webp/image-rs/lossless_images/2-color.webp", "webp", "image-rs/image: MIT OR Apache-2.0", {}],
  ["webp/lossy-alpha", "webp/image-rs/extended_images/lossy_alpha.webp", "webp", "image-rs/image: MIT OR Apache-2.0", {}],
];

function corpusBytes(path) {
  const p = join(corpus, path);
  if (existsSync(p)) return new Uint8Array(readFileSync(p));
  const alt = join(root, "test/fixtures/pipeline", path.split("/").pop());
  if (existsSync(alt)) return new Uint8Array(readFileSync(alt));
  throw new Error(`fixture source missing: ${p}`);
}

/** Inserts an APP1 Exif segment holding only Orientation = `o` (TIFF 6.0 tag 0x0112) after the SOI marker. */
function withExifOrientation(jpeg, o) {
  const tiff = [0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, o, 0, 0, 0, 0, 0, 0];
  const payload = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff];
  const len = payload.length + 2;
  const seg = [0xff, 0xe1, len >> 8, len & 0xff, ...payload];
  return new Uint8Array([...jpeg.subarray(0, 2), ...seg, ...jpeg.subarray(2)]);
}

const files = {};
const fileInfo = {};
for (const [key, path, format, licence, flags] of list) {
  files[key] = Buffer.from(corpusBytes(path)).toString("base64");
  fileInfo[key] = { format, source: path, licence, decode: true, ...flags };
}
const ycbcr = corpusBytes("jpeg/jpegsuite/baseline/32x32x8_ycbcr_2x2_1x1_1x1.jpg");
const exif6 = withExifOrientation(ycbcr, 6);
files["jpeg/exif-orientation-6"] = Buffer.from(exif6).toString("base64");
fileInfo["jpeg/exif-orientation-6"] = { format: "jpeg", source: "jpeg/ycbcr-32x32 with an APP1 Exif segment (Orientation 6) added here", licence: JPEGSUITE, decode: true };
const pdf = "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj 2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n";
files["pdf/minimal"] = Buffer.from(pdf).toString("base64");
fileInfo["pdf/minimal"] = { format: "pdf", source: "written here", licence: "CC0-1.0", decode: false };
const heic = new Uint8Array([0, 0, 0, 24, ...Buffer.from("ftypheic"), 0, 0, 0, 0, ...Buffer.from("mif1heic"), 0, 0, 0, 8, ...Buffer.from("meta")]);
files["heic/ftyp-header"] = Buffer.from(heic).toString("base64");
fileInfo["heic/ftyp-header"] = { format: "heic", source: "an ISO BMFF ftyp box written here (no image data)", licence: "CC0-1.0", decode: false };

function write(expected) {
  const text = `// GENERATED by scripts/runtimes/generate-fixtures.mjs (node scripts/test-runtimes.mjs --update) — do not edit.
// Small images embedded for the runtime checks (test/runtimes/checks.js), with the value each check must
// give in every runtime. Sources and licences: see fileInfo (all permissive; the PDF, HEIC header and EXIF
// segment were written by the generator).
/** Fixture bytes, base64 (RFC 4648 §4). */
export const files = ${JSON.stringify(files, null, 2)};
/** Where each fixture came from, its licence, and how the checks use it. */
export const fileInfo = ${JSON.stringify(fileInfo, null, 2)};
/** Check name → the exact string every runtime must produce. */
export const expected = ${JSON.stringify(expected, null, 2)};
`;
  writeFileSync(out, text);
}

/** A PNG without its colour-management chunks (gAMA, cHRM, sRGB, iCCP): pixfit does no colour management. */
function withoutColourChunks(png) {
  const parts = [png.subarray(0, 8)];
  for (let p = 8; p + 12 <= png.length; ) {
    const len = png.readUInt32BE(p);
    const type = png.toString("latin1", p + 4, p + 8);
    if (!["gAMA", "cHRM", "sRGB", "iCCP"].includes(type)) parts.push(png.subarray(p, p + 12 + len));
    p += 12 + len;
  }
  return Buffer.concat(parts);
}

/**
 * ImageMagick 6's RGBA for a PngSuite file, colour-management chunks removed first (else ImageMagick applies
 * gAMA 1.0 as linear light): "W×H sha256".
 */
function imagemagickId(path) {
  const convert = "/usr/bin/convert";
  if (!existsSync(convert)) return null;
  const input = withoutColourChunks(readFileSync(join(corpus, path)));
  const size = execFileSync(convert, ["png:-", "-format", "%w %h", "info:"], { input }).toString().trim().split(" ");
  const rgba = execFileSync(convert, ["png:-", "-depth", "8", "rgba:-"], { input, maxBuffer: 1 << 28 });
  return `${size[0]}x${size[1]} ${createHash("sha256").update(rgba).digest("hex")}`;
}

write({});
const checks = await import(pathToFileURL(join(root, "test/runtimes/checks.js")).href + "?t=" + Date.now());
const px = await import(pathToFileURL(join(root, "src/index.ts")).href);
const values = await checks.computeValues(px);
const problems = [];
for (const [key, path, , , flags] of list) {
  if (!flags.parity) continue;
  const name = `decode ${key} (PngSuite parity)`;
  const im = imagemagickId(path);
  if (im === null) {
    problems.push(`${name}: ImageMagick not available; kept pixfit's value`);
    continue;
  }
  if (values[name] !== im) problems.push(`${name}: pixfit ${values[name]} vs ImageMagick ${im}; expecting ImageMagick's`);
  values[name] = im;
}
for (const [name, v] of Object.entries(values)) if (v.startsWith("threw")) problems.push(`${name}: ${v}`);
write(values);
console.log(`wrote ${out}: ${Object.keys(files).length} fixtures, ${Object.keys(values).length} checks`);
for (const p of problems) console.log(`  note: ${p}`);
