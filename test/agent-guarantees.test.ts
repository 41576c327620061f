/**
 * Agent-level guarantees (issue 5): one hostile attachment never loses the turn. A tool result mixing good images with
 * every hostile fixture — each decompression bomb, truncated and bit-damaged copies of the good files, fuzz-found
 * inputs, empty, unknown and unsupported bytes — goes through `toParts` for every target: every good image comes back
 * as a media part, every bad one as one text note naming it and its error code, all in the order given, and `toParts`
 * never throws. The same list through `prepare` one by one gives a result or a `PixfitError` for each.
 */
import assert from "node:assert/strict";
import { closeSync, ftruncateSync, mkdtempSync, openSync, readFileSync, readdirSync, rmSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { detect } from "../src/detect.js";
import { isPixfitError, type ErrorCode } from "../src/errors.js";
import { toParts, type Attachment, type MediaPart, type ResultPart, type TextPart } from "../src/parts.js";
import { prepare } from "../src/prepare.js";
import { targets } from "../src/targets.js";
import { corpusFile } from "./corpus.js";

const here = dirname(fileURLToPath(import.meta.url));
const read = (p: string) => new Uint8Array(readFileSync(join(here, "fixtures", p)));

/** A good file per format (present in the fixtures subset and the full corpus). */
const GOOD: [string, Uint8Array][] = [
  ["good.png", corpusFile("png/pngsuite/basn6a08.png")],
  ["good.jpg", corpusFile("jpeg/jpegsuite/baseline/32x32x8_rgb.jpg")],
  ["good.gif", corpusFile("gif/peterdn/animated_transparent_loop.gif")],
  ["good.bmp", corpusFile("bmp/bmpsuite/g/pal1.bmp")],
  ["good.webp", corpusFile("webp/image-rs/lossy_images/simple-rgb.webp")],
];

interface Bad {
  name: string;
  bytes: Uint8Array;
  code: ErrorCode;
}

function flipped(b: Uint8Array, at: number): Uint8Array {
  const c = b.slice();
  c[at] ^= 0xff;
  return c;
}

function hostile(): Bad[] {
  const bad: Bad[] = [];
  const bombs: { file: string; expect: string; slow?: string }[] = JSON.parse(readFileSync(join(here, "fixtures", "bombs", "bombs.json"), "utf8"));
  for (const b of bombs) if (!b.expect.startsWith("decodes") && !b.slow) bad.push({ name: b.file, bytes: read(`bombs/${b.file}`), code: b.expect as ErrorCode });
  const regressions: { file: string; outcome: string; slow?: string }[] = JSON.parse(readFileSync(join(here, "fixtures", "fuzz", "regressions.json"), "utf8"));
  for (const r of regressions) {
    const m = / prepare:([A-Z_]+)/.exec(r.outcome); // the outcome with default options, as toParts runs it
    if (m && !r.slow) bad.push({ name: r.file, bytes: read(`fuzz/${r.file}`), code: m[1] as ErrorCode });
  }
  for (const [name, bytes] of GOOD) {
    // inside the first (GIF: only) image; GIF policy ignores damage after the first frame
    const cut = name.endsWith(".gif") ? 30 : Math.floor(bytes.length * 0.6);
    bad.push({ name: `truncated-${name}`, bytes: bytes.subarray(0, cut), code: "CORRUPT_IMAGE" });
  }
  // damage inside the pixel data that the header probe cannot see (only a decode can)
  const png = GOOD[0][1];
  bad.push({ name: "bad-idat-crc.png", bytes: flipped(png, png.length - 16), code: "CORRUPT_IMAGE" });
  bad.push({ name: "empty.png", bytes: new Uint8Array(0), code: "EMPTY_INPUT" });
  bad.push({ name: "photo.heic", bytes: new Uint8Array([0, 0, 0, 0x18, 0x66, 0x74, 0x79, 0x70, 0x68, 0x65, 0x69, 0x63, 0, 0, 0, 0]), code: "UNSUPPORTED_FORMAT" });
  bad.push({ name: "notes.txt", bytes: new TextEncoder().encode("just some text, not an image\n"), code: "UNSUPPORTED_FORMAT" });
  bad.push({ name: "jpeg-signature-on-png-body.jpg", bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xe0, ...png.subarray(8)]), code: "CORRUPT_IMAGE" });
  return bad;
}

const bad = hostile();

/** good, bad, good, bad, ...: every bad file is between two good ones. */
function mixed(): { attachments: Attachment[]; plan: ({ good: true; name: string } | ({ good: false } & Bad))[] } {
  const plan: ({ good: true; name: string } | ({ good: false } & Bad))[] = [];
  const attachments: Attachment[] = [];
  bad.forEach((b, i) => {
    const [name, bytes] = GOOD[i % GOOD.length];
    plan.push({ good: true, name: `${i}-${name}` });
    attachments.push({ bytes, name: `${i}-${name}` });
    plan.push({ good: false, ...b });
    attachments.push({ bytes: b.bytes, name: b.name });
  });
  const [name, bytes] = GOOD[0];
  plan.push({ good: true, name: `last-${name}` });
  attachments.push({ bytes, name: `last-${name}` });
  return { attachments, plan };
}

test("the hostile set covers bombs, truncations, damage, empty and unknown input", () => {
  assert.ok(bad.length >= 25, `${bad.length} hostile files`);
  for (const code of ["TOO_MANY_PIXELS", "CORRUPT_IMAGE", "EMPTY_INPUT", "UNSUPPORTED_FORMAT"]) assert.ok(bad.some((b) => b.code === code), code);
});

for (const [key, target] of Object.entries(targets)) {
  test(`toParts (${key}): every good image kept, one note per bad file, in order`, async () => {
    const { attachments, plan } = mixed();
    const parts: ResultPart[] = await toParts({ text: "tool output", attachments }, { target });
    assert.deepEqual(parts[0], { type: "text", text: "tool output" });
    let i = 1;
    let kept = 0;
    for (const step of plan) {
      const p = parts[i++];
      assert.ok(p, `missing part for ${step.name}`);
      if (step.good && kept === target.request.maxImages) {
        // past the target's image count: a note saying so, not a lost turn
        assert.match((p as TextPart).text, new RegExp(`^\\[attachment "${step.name}" omitted: .* accepts at most ${kept} images`), key);
      } else if (step.good) {
        kept++;
        assert.equal(p.type, "media", `${key}: ${step.name} should be kept, got ${JSON.stringify(p).slice(0, 200)}`);
        const m = p as MediaPart;
        assert.equal(m.name, step.name);
        assert.ok(target.accepts.includes(m.mediaType), `${key}: ${m.mediaType} not accepted`);
        assert.equal(detect(Buffer.from(m.data, "base64")), m.mediaType, "the data is what the media type says");
        // a resized image is followed by its coordinate note
        if (parts[i]?.type === "text" && (parts[i] as TextPart).text.startsWith(`[image "${step.name}" was resized`)) i++;
      } else {
        assert.equal(p.type, "text", `${key}: ${step.name} should be a note`);
        const t = (p as TextPart).text;
        assert.ok(t.startsWith(`[attachment "${step.name}" omitted: `), t);
        assert.ok(t.endsWith(`(${step.code})]`), `${key}: ${step.name}: ${t}`);
      }
    }
    assert.equal(i, parts.length, "no extra parts");
  });
}

test("prepare on the same list: a result or a PixfitError for each, never anything else", async () => {
  const { attachments, plan } = mixed();
  const settled = await Promise.allSettled(attachments.map((a) => prepare(a.bytes!)));
  settled.forEach((s, k) => {
    const step = plan[k];
    if (s.status === "rejected") {
      assert.ok(isPixfitError(s.reason), `${step.name}: ${s.reason}`);
      assert.ok(!step.good, `${step.name} is good but was refused: ${s.reason}`);
      assert.equal(s.reason.code, step.good ? undefined : step.code, step.name);
    } else if (step.good) {
      assert.ok(s.value.bytes.length > 0);
    } else {
      // prepare() hands back an image whose header fits without decoding it, so only what a decode finds gets
      // through: damaged data, or frames that stretch the canvas (toParts decodes these once and drops them)
      assert.equal(s.value.bytes, step.bytes, `${step.name}: only an untouched pass-through may succeed`);
      assert.ok(["CORRUPT_IMAGE", "TOO_MANY_PIXELS"].includes(step.code), `${step.name}: a ${step.code} file passed through`);
      assert.ok(s.value.width <= 2000 && s.value.height <= 2000);
    }
  });
  assert.ok(settled.some((s) => s.status === "rejected"));
});

test("fixture folders hold only what the manifests list", () => {
  const bombs: { file: string }[] = JSON.parse(readFileSync(join(here, "fixtures", "bombs", "bombs.json"), "utf8"));
  assert.deepEqual(readdirSync(join(here, "fixtures", "bombs")).filter((f) => f !== "bombs.json").sort(), bombs.map((b) => b.file).sort());
  const regressions: { file: string }[] = JSON.parse(readFileSync(join(here, "fixtures", "fuzz", "regressions.json"), "utf8"));
  assert.deepEqual(readdirSync(join(here, "fixtures", "fuzz")).filter((f) => f !== "regressions.json" && f !== "README.md").sort(), regressions.map((r) => r.file).sort());
});

test("byte limits are checked before reading: a 3 GB file by path and an oversized buffer become notes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "pixfit-guarantees-"));
  try {
    // sparse: 3 GB long, no disk used; reading it would take seconds and gigabytes
    const huge = join(dir, "huge.png");
    const fd = openSync(huge, "w");
    writeSync(fd, GOOD[0][1]);
    ftruncateSync(fd, 3 * 1024 ** 3);
    closeSync(fd);
    const [name, bytes] = GOOD[1];
    const before = process.memoryUsage().rss;
    const big = new Uint8Array(200_000);
    big.set(GOOD[0][1]);
    const parts = await toParts(
      { attachments: [{ path: huge }, { bytes, name }, { bytes: big, name: "big.png" }] },
      { target: targets.anthropic, maxInputBytes: 100_000 },
    );
    assert.equal(parts.length, 3);
    assert.match((parts[0] as TextPart).text, /^\[attachment "huge\.png" omitted: .*\(INPUT_TOO_LARGE\)\]$/);
    assert.equal(parts[1].type, "media");
    assert.match((parts[2] as TextPart).text, /^\[attachment "big\.png" omitted: .*\(INPUT_TOO_LARGE\)\]$/);
    assert.ok(process.memoryUsage().rss - before < 256 * 1024 ** 2, "the 3 GB file was not read");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
