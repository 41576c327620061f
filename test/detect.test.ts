import { test } from "node:test";
import assert from "node:assert/strict";
import { detect, detectUnsupported } from "../src/detect.js";
import { probe } from "../src/probe.js";
import { PixfitError } from "../src/errors.js";
import { corpusFile, corpusRows } from "./corpus.js";

const bytes = (...parts: (string | number[])[]) =>
  new Uint8Array(parts.flatMap((p) => (typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p)));

test("detects each supported signature and ignores everything after it", () => {
  assert.equal(detect(bytes([0x89], "PNG\r\n\x1a\n", [0, 0, 0, 13])), "image/png");
  assert.equal(detect(bytes([0xff, 0xd8, 0xff, 0xe0])), "image/jpeg");
  assert.equal(detect(bytes("GIF87a", [1, 0, 1, 0])), "image/gif");
  assert.equal(detect(bytes("GIF89a", [1, 0, 1, 0])), "image/gif");
  assert.equal(detect(bytes("BM", [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 40, 0, 0, 0])), "image/bmp");
  assert.equal(detect(bytes("RIFF", [0, 0, 0, 0], "WEBPVP8 ")), "image/webp");
  assert.equal(detect(bytes("%PDF-1.7\n")), "application/pdf");
});

test("near misses are not detected", () => {
  assert.equal(detect(new Uint8Array()), null);
  assert.equal(detect(bytes([0x89], "PN")), null, "truncated PNG signature");
  assert.equal(detect(bytes([0xff, 0xd8])), null, "SOI without a following marker");
  assert.equal(detect(bytes("GIF88a")), null);
  assert.equal(detect(bytes("BMW is a car brand, not a bitmap")), null);
  assert.equal(detect(bytes("RIFF", [0, 0, 0, 0], "WAVEfmt ")), null);
  assert.equal(detect(bytes("hello %PDF-1.4")), null);
});

test("names formats pixfit recognises but does not handle", () => {
  const ftyp = (major: string, ...compat: string[]) =>
    bytes([0, 0, 0, 16 + 4 * compat.length], "ftyp", major, [0, 0, 0, 0], ...compat);
  const cases: [Uint8Array, string][] = [
    [ftyp("heic", "mif1", "heic"), "HEIC"],
    [ftyp("mif1", "mif1", "heic"), "HEIC"],
    [ftyp("avif", "avif", "mif1"), "AVIF"],
    [bytes("II*\0", [8, 0, 0, 0]), "TIFF"],
    [bytes("MM\0*", [0, 0, 0, 8]), "TIFF"],
    [bytes("<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>"), "SVG"],
    [bytes("  <svg width=\"10\" height=\"10\"/>"), "SVG"],
    [bytes([0, 0, 1, 0, 1, 0, 16, 16]), "ICO"],
    [bytes([0xff, 0x0a, 0xfa]), "JPEG XL"],
    [bytes([0, 0, 0, 0x0c], "JXL ", [0x0d, 0x0a, 0x87, 0x0a]), "JPEG XL"],
    [bytes([0, 0, 0, 0x0c], "jP  ", [0x0d, 0x0a, 0x87, 0x0a]), "JPEG 2000"],
    [bytes("8BPS", [0, 1]), "PSD"],
  ];
  for (const [b, name] of cases) {
    assert.equal(detect(b), null, name);
    assert.equal(detectUnsupported(b)?.name, name);
  }
  assert.equal(detectUnsupported(bytes("<html><body>not an svg</body></html>")), null);
  assert.equal(detectUnsupported(bytes("plain text")), null);
});

test("probe errors: empty and unknown inputs get stable codes, HEIC is named", () => {
  assert.throws(() => probe(new Uint8Array()), (e: unknown) => e instanceof PixfitError && e.code === "EMPTY_INPUT");
  assert.throws(() => probe(bytes("plain text")), (e: unknown) => e instanceof PixfitError && e.code === "UNSUPPORTED_FORMAT" && /not PNG, JPEG/.test(e.message));
  assert.throws(
    () => probe(bytes([0, 0, 0, 24], "ftypheic", [0, 0, 0, 0], "mif1heic")),
    (e: unknown) => e instanceof PixfitError && e.code === "UNSUPPORTED_FORMAT" && e.message.startsWith("HEIC images are not supported") && e.format === "heic",
  );
});

test("every corpus image is detected as the format its manifest gives, by content alone", () => {
  const expectFor: Record<string, string> = { png: "image/png", jpeg: "image/jpeg", gif: "image/gif", bmp: "image/bmp", webp: "image/webp", pdf: "application/pdf" };
  let checked = 0;
  const misses: string[] = [];
  for (const row of corpusRows()) {
    const want = expectFor[row.format];
    if (!want) continue;
    const b = corpusFile(row.path);
    const got = detect(b);
    // Files whose manifest says they lack the format's signature (truncated to nothing, no SOI, no %PDF header,
    // another format under this name) are expected to be undetected or detected as what they really are.
    const broken = /no SOI|no %PDF header|0 bytes|detect format by content|BMP-related format|bad signature|signature/i.test(row.note) || b.length < 8;
    if (got !== want && !broken) misses.push(`${row.path}: ${got}`);
    checked++;
  }
  assert.ok(checked > 0);
  assert.deepEqual(misses, []);
});

test("a PNG whose signature was damaged by a text-mode transfer is reported as a corrupt PNG", async () => {
  const { prepare } = await import("../src/prepare.js");
  const damaged = bytes([0x89], "PNG\r\r\n\x1a\n", [0, 0, 0, 13], "IHDR");
  assert.equal(detect(damaged), "image/png");
  await assert.rejects(prepare(damaged), (e: unknown) => e instanceof PixfitError && e.code === "CORRUPT_IMAGE" && /text-mode/.test(e.message));
});
