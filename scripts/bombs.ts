/**
 * Time and peak memory for each decompression-bomb fixture (test/fixtures/bombs/, see scripts/make-bombs.ts):
 *
 *   npm run bombs
 *
 * Each fixture runs in a fresh Node process (so one fixture's allocations cannot hide another's): it loads pixfit,
 * warms the format's decoder on a tiny valid file, then runs detect, probe, prepare() with defaults and the codec's
 * decode with the default pixel limit (the decode `toParts` does to verify a pass-through). Printed per fixture: the
 * outcome, wall time of that work in ms, the resident memory (RSS) just before the work and the process's peak RSS
 * (maxRSS) after it, in MiB; "+added" is how far the work rose above the footprint it started from. Two real images
 * are measured the same way for scale. Figures are printed, never asserted (test/bombs.test.ts asserts the outcomes).
 *
 *   npm run bombs -- --scale
 *
 * prints each decoder's peak memory per pixel instead (1000², 2000² and 3000² images), the figure behind "memory is
 * bounded by maxInputPixels × N bytes". RSS is coarse (garbage collection and page reuse blur small figures); read
 * the largest size.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const bombDir = join(root, "test", "fixtures", "bombs");

/** Tiny valid files (made here) that load each decoder before the measurement starts. */
async function warm(format: string): Promise<void> {
  const { codecs } = await import("../codecs/index.js");
  const codec = codecs.find((c) => c.format === format);
  if (!codec?.decode || !codec.encode) {
    if (format === "webp") {
      // 1 × 1 lossless WEBP (RFC 9649): signature, 14-bit sizes 0, version 0, then a trivial bitstream
      const { webp } = await import("../codecs/webp.js");
      const f = new Uint8Array([82, 73, 70, 70, 26, 0, 0, 0, 87, 69, 66, 80, 86, 80, 56, 76, 13, 0, 0, 0, 47, 0, 0, 0, 16, 7, 16, 17, 17, 136, 136, 254, 7, 0]);
      await webp.decode!(f, { maxPixels: 1 }).catch(() => undefined);
    }
    return;
  }
  const tiny = await codec.encode({ width: 1, height: 1, data: new Uint8Array([1, 2, 3, 255]) }, { quality: 80 });
  await codec.decode(tiny, { maxPixels: 1 });
}

async function one(path: string): Promise<void> {
  const { codecFor } = await import("../codecs/index.js");
  const { detect } = await import("../src/detect.js");
  const { probe } = await import("../src/probe.js");
  const { prepare, prepareDefaults } = await import("../src/prepare.js");
  const { isPixfitError } = await import("../src/errors.js");
  const bytes = new Uint8Array(readFileSync(path));
  const codec = codecFor(bytes);
  await warm(codec?.format ?? "");
  const outcome = (p: Promise<unknown>) =>
    p.then(
      (r) => {
        const x = r as { width?: number; height?: number };
        return `ok ${x.width}x${x.height}`;
      },
      (e: unknown) => (isPixfitError(e) ? e.code : `UNTYPED ${e}`),
    );
  const before = process.memoryUsage().rss / 1024; // KiB, the current footprint (maxRSS may hold an earlier, higher peak)
  const t0 = performance.now();
  detect(bytes);
  const probed = await outcome(Promise.resolve().then(() => probe(bytes)));
  const prepared = await outcome(prepare(bytes));
  const decoded = codec?.decode ? await outcome(codec.decode(bytes, { maxPixels: prepareDefaults.maxInputPixels })) : "-";
  const ms = performance.now() - t0;
  const after = process.resourceUsage().maxRSS;
  console.log(JSON.stringify({ bytes: bytes.length, probed, prepared, decoded, ms, before: before / 1024, after: after / 1024 }));
}

function main(): void {
  const rows: { file: string; what: string; expect: string }[] = JSON.parse(readFileSync(join(bombDir, "bombs.json"), "utf8"));
  const real = ["/usr/share/backgrounds/mate/nature/FreshFlower.jpg", join(root, "samples", "TwoWings.jpg")].filter(existsSync);
  const items = [...rows.map((r) => ({ label: r.file, path: join(bombDir, r.file), expect: r.expect })), ...real.map((p) => ({ label: `(real) ${p.split("/").pop()}`, path: p, expect: "decodes" }))];
  console.log("fixture".padEnd(28) + "bytes".padStart(8) + "  " + "prepare()".padEnd(18) + "decode".padEnd(18) + "ms".padStart(8) + "  MiB: RSS before → peak after (+added)");
  let bad = 0;
  for (const it of items) {
    const r = spawnSync(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), "--one", it.path], { cwd: root, encoding: "utf8" });
    const line = r.stdout.trim().split("\n").pop() ?? "";
    let m: { bytes: number; prepared: string; decoded: string; ms: number; before: number; after: number };
    try {
      m = JSON.parse(line);
    } catch {
      bad++;
      console.log(`${it.label.padEnd(28)} FAILED (exit ${r.status}): ${r.stderr.split("\n").slice(0, 5).join(" | ")}`);
      continue;
    }
    if (!it.expect.startsWith("decodes") && m.decoded !== it.expect) bad++;
    console.log(
      it.label.padEnd(28) + String(m.bytes).padStart(8) + "  " + m.prepared.padEnd(18) + m.decoded.padEnd(18) + m.ms.toFixed(1).padStart(8) +
        `  ${m.before.toFixed(0)} → ${m.after.toFixed(0)} (+${(m.after - m.before).toFixed(1)})`,
    );
  }
  if (bad) {
    console.log(`${bad} fixture(s) not refused as expected`);
    process.exitCode = 1;
  }
}

/**
 * Decode cost per pixel. `--scale-make <format> <side> <file>` writes a `side` × `side` image (a gradient with noise,
 * encoded by pixfit's own encoder); `--scale-one <format> <file>` decodes a file in a fresh process (after warming the
 * decoder on a 1 × 1 image) and prints the peak memory the decode added, in bytes per pixel. `npm run bombs -- --scale`
 * runs both for each format (WEBP: a real wallpaper, pixfit has no WEBP encoder).
 */
async function scaleMake(format: string, side: number, file: string): Promise<void> {
  const { codecs } = await import("../codecs/index.js");
  const codec = codecs.find((c) => c.format === format)!;
  const data = new Uint8Array(side * side * 4);
  let s = 1;
  for (let k = 0; k < data.length; k++) {
    s = (s * 1103515245 + 12345) >>> 0;
    data[k] = (k & 3) === 3 ? 255 : (((k >> 2) % side) + (s >>> 28)) & 255;
  }
  writeFileSync(file, await codec.encode!({ width: side, height: side, data }, { quality: 80 }));
}

async function scaleOne(format: string, file: string): Promise<void> {
  const { codecs } = await import("../codecs/index.js");
  const codec = codecs.find((c) => c.format === format)!;
  const bytes = new Uint8Array(readFileSync(file));
  await warm(format);
  const info = codec.probe!(bytes);
  const before = process.memoryUsage().rss / 1024; // KiB, the current footprint (maxRSS may hold an earlier, higher peak)
  const t0 = performance.now();
  await codec.decode!(bytes, { maxPixels: 1e9 });
  const ms = performance.now() - t0;
  const added = (process.resourceUsage().maxRSS - before) * 1024;
  const px = info.width * info.height;
  console.log(JSON.stringify({ format, width: info.width, height: info.height, bytes: bytes.length, ms, addedMiB: added / 2 ** 20, perPixel: added / px }));
}

function scale(): void {
  const webpFile = ["/usr/share/backgrounds/gnome/adwaita-l.webp", "/usr/share/backgrounds/gnome/blobs-l.webp"].find(existsSync);
  const dir = mkdtempSync(join(tmpdir(), "pixfit-scale-"));
  const self = fileURLToPath(import.meta.url);
  console.log("format  size        file bytes   decode ms   peak added MiB   bytes/pixel");
  for (const format of ["png", "jpeg", "gif", "bmp", "webp"]) {
    for (const side of format === "webp" ? [0] : [1000, 2000, 3000]) {
      let file = webpFile;
      if (format !== "webp") {
        file = join(dir, `${side}.${format}`);
        spawnSync(process.execPath, ["--import", "tsx", self, "--scale-make", format, String(side), file], { cwd: root });
      }
      if (!file) continue;
      const r = spawnSync(process.execPath, ["--import", "tsx", self, "--scale-one", format, file], { cwd: root, encoding: "utf8" });
      try {
        const m = JSON.parse(r.stdout.trim().split("\n").pop()!);
        console.log(`${m.format.padEnd(8)}${`${m.width}x${m.height}`.padEnd(12)}${String(m.bytes).padStart(10)}${m.ms.toFixed(0).padStart(12)}${m.addedMiB.toFixed(1).padStart(17)}${m.perPixel.toFixed(1).padStart(14)}`);
      } catch {
        console.log(`${format} ${side}: failed: ${r.stderr.split("\n").slice(0, 3).join(" | ")}`);
      }
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

const i = process.argv.indexOf("--one");
const k = process.argv.indexOf("--scale-one");
const mk = process.argv.indexOf("--scale-make");
if (i >= 0) await one(process.argv[i + 1]);
else if (k >= 0) await scaleOne(process.argv[k + 1], process.argv[k + 2]);
else if (mk >= 0) await scaleMake(process.argv[mk + 1], Number(process.argv[mk + 2]), process.argv[mk + 3]);
else if (process.argv.includes("--scale")) scale();
else main();
