import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { main, parseArgs } from "../src/cli.js";
import { png } from "../codecs/png.js";
import { jpeg } from "../codecs/jpeg.js";
import { detect } from "../src/detect.js";

function raster(width: number, height: number) {
  const data = new Uint8Array(width * height * 4);
  for (let i = 0; i < data.length; i += 4) (data[i] = i % 251), (data[i + 1] = 128), (data[i + 2] = 64), (data[i + 3] = 255);
  return { width, height, data };
}

async function run(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(argv, (l) => out.push(l), (l) => err.push(l));
  return { code, out, err };
}

test("--json prints one object per input with the documented keys, and failures do not stop the run", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pixfit-cli-"));
  const big = join(dir, "big.jpg");
  const small = join(dir, "small.png");
  const bad = join(dir, "bad.png");
  writeFileSync(big, await jpeg.encode!(raster(300, 200), {}));
  writeFileSync(small, await png.encode!(raster(20, 10), {}));
  writeFileSync(bad, new TextEncoder().encode("not an image"));
  const outDir = join(dir, "out");
  const { code, out } = await run(["--json", "--max", "150x150", "--out", outDir, big, bad, small]);
  assert.equal(code, 1, "a failed file makes the exit code 1");
  assert.equal(out.length, 3);
  const [a, b, c] = out.map((l) => JSON.parse(l));
  assert.deepEqual(Object.keys(a), ["input", "mediaType", "width", "height", "byteLength", "resized", "transcoded", "orientation", "original", "ms"]);
  assert.deepEqual({ ...a, ms: 0 }, {
    input: big, mediaType: "image/jpeg", width: 150, height: 100, byteLength: readFileSync(join(outDir, "big.jpg")).length,
    resized: true, transcoded: false, orientation: 1,
    original: { mediaType: "image/jpeg", width: 300, height: 200, byteLength: readFileSync(big).length }, ms: 0,
  });
  assert.equal(typeof a.ms, "number");
  assert.deepEqual(b, { input: bad, error: { code: "UNSUPPORTED_FORMAT", message: "Unrecognised data: the bytes are not PNG, JPEG, GIF, BMP, WEBP or PDF." } });
  assert.equal(c.resized, false);
  assert.deepEqual(readFileSync(join(outDir, "small.png")), readFileSync(small), "pass-through writes the same bytes");
  assert.equal(detect(new Uint8Array(readFileSync(join(outDir, "big.jpg")))), "image/jpeg");
  assert.equal(existsSync(join(outDir, "bad.png")), false);
});

test("exit codes: 0 when all succeed, 2 on bad usage; a missing file is READ_FAILED", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pixfit-cli-"));
  const ok = join(dir, "ok.png");
  writeFileSync(ok, await png.encode!(raster(8, 8), {}));
  assert.equal((await run([ok])).code, 0);
  assert.match((await run([ok])).out[0], /ok\.png: image\/png 8x8 .* -> image\/png 8x8 .*\(passed through\)/);
  for (const argv of [[], ["--max", "big", ok], ["--quality", "0", ok], ["--filter", "nearest", ok], ["--frobnicate", ok], ["--out"]]) {
    const r = await run(argv);
    assert.equal(r.code, 2, argv.join(" "));
    assert.match(r.err[0], /^pixfit: /);
  }
  assert.equal((await run(["--frobnicate", ok])).err[0], "pixfit: unknown option --frobnicate\nRun 'pixfit --help' for usage.");
  const missing = await run(["--json", join(dir, "nope.png")]);
  assert.equal(missing.code, 1);
  assert.equal(JSON.parse(missing.out[0]).error.code, "READ_FAILED");
});

test("parseArgs maps options to prepare options", () => {
  assert.deepEqual(parseArgs(["--max", "800x600", "--quality", "70", "--filter", "lanczos3", "a.jpg", "--", "-b.png"]), {
    files: ["a.jpg", "-b.png"], json: false, options: { maxWidth: 800, maxHeight: 600, jpegQuality: 70, filter: "lanczos3" },
  });
  assert.equal(parseArgs(["--help"]), "help");
  assert.deepEqual(parseArgs(["--max=800x600", "--quality=70", "--", "--max=1x1"]), {
    files: ["--max=1x1"], json: false, options: { maxWidth: 800, maxHeight: 600, jpegQuality: 70 },
  });
});

test("--out never overwrites: a repeated base name gets a numbered suffix", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pixfit-cli-"));
  const { mkdirSync } = await import("node:fs");
  mkdirSync(join(dir, "a"));
  mkdirSync(join(dir, "b"));
  const a = join(dir, "a", "s.png");
  const b = join(dir, "b", "s.png");
  writeFileSync(a, await png.encode!(raster(8, 8), {}));
  writeFileSync(b, await png.encode!(raster(9, 9), {}));
  const outDir = join(dir, "out");
  assert.equal((await run(["--out", outDir, a, b])).code, 0);
  assert.deepEqual(readFileSync(join(outDir, "s.png")), readFileSync(a));
  assert.deepEqual(readFileSync(join(outDir, "s-2.png")), readFileSync(b));
});
