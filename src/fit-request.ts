/**
 * Whole-request limits: image and document counts, the many-image dimension rule, request size. A long session with
 * many screenshots keeps working instead of failing on every later turn.
 */
import { base64DecodedLength, decodeBase64, encodeBase64 } from "./base64.js";
import { isPixfitError } from "./errors.js";
import type { MediaPart, ResultPart, TextPart } from "./parts.js";
import { prepare, type PrepareOptions } from "./prepare.js";
import { probe } from "./probe.js";
import { countedBytes, type Target } from "./targets.js";

/** A message of any shape that carries pixfit parts (a `ToolResult`, a `SessionEntry`, your own type). */
export interface MessageWithParts {
  readonly parts: readonly ResultPart[];
}

/** Options for {@link fitRequest}. */
export interface FitRequestOptions extends Omit<PrepareOptions, "target" | "maxWidth" | "maxHeight"> {
  /** Bytes of `request.maxBytes` kept free for the JSON envelope, tool definitions and system prompt. Default 256 KiB. */
  reserveBytes?: number;
  /** Images are not downsized below this long edge (pixels) to save bytes; they are replaced by a note instead. Default 256. */
  minLongEdge?: number;
}

interface Ref {
  mi: number;
  pi: number;
}

/**
 * Checks a conversation's media against `target`'s request-level rules and returns a new message list that meets them.
 * Messages are in chronological order (oldest first); changed messages are shallow copies with a new `parts` array,
 * unchanged ones are returned as they are; `messages` is never modified.
 *
 * In order:
 * 1. each media part the target cannot take as it is (media type, per-image or per-document limits) is re-prepared
 *    with `prepare(..., { target })`, or replaced by a note when that fails;
 * 2. images beyond `request.maxImages` and documents beyond `request.maxDocuments` (per request, or per message for
 *    Bedrock Converse) are replaced by notes, oldest first;
 * 3. when the request then holds more images than the many-image rule allows (Anthropic: more than 20), every image
 *    larger than its dimensions (2000 × 2000) is downsized to fit;
 * 4. while the total (base64 media + text + `reserveBytes`) exceeds `request.maxBytes`, images are halved oldest first
 *    (not below `minLongEdge`), then the oldest media are replaced by notes.
 * A note reads `[image "name" removed: <reason>]`. Coordinate notes written by `toParts` are not rewritten.
 * Never throws for bad media (it becomes a note).
 */
export async function fitRequest<M extends MessageWithParts>(messages: readonly M[], target: Target, options: FitRequestOptions = {}): Promise<M[]> {
  const { reserveBytes = 256 * 1024, minLongEdge = 256, ...prepareOptions } = options;
  const out: M[] = messages.slice();
  const copied = new Set<number>();
  const part = (r: Ref) => out[r.mi].parts[r.pi];
  const set = (r: Ref, p: ResultPart) => {
    if (!copied.has(r.mi)) {
      out[r.mi] = { ...out[r.mi], parts: out[r.mi].parts.slice() } as M;
      copied.add(r.mi);
    }
    (out[r.mi].parts as ResultPart[])[r.pi] = p;
  };
  const refs = (): Ref[] => {
    const list: Ref[] = [];
    out.forEach((m, mi) => m.parts.forEach((p, pi) => p.type === "media" && list.push({ mi, pi })));
    return list;
  };
  const isImage = (r: Ref) => (part(r) as MediaPart).mediaType !== "application/pdf";
  const dims = new Map<string, { width: number; height: number }>();
  const sizeOf = (p: MediaPart) => {
    if (p.width !== undefined && p.height !== undefined) return { width: p.width, height: p.height };
    let d = dims.get(p.data);
    if (!d) {
      const info = probe(decodeBase64(p.data));
      d = { width: info.width, height: info.height };
      dims.set(p.data, d);
    }
    return d;
  };
  const remove = (r: Ref, why: string) => {
    const p = part(r) as MediaPart;
    set(r, note(p, why));
  };
  // The same screenshot often recurs in a session: convert each distinct (data, box) once.
  const cache = new Map<string, Map<string, MediaPart>>();
  const redo = async (r: Ref, box: { maxWidth?: number; maxHeight?: number }, why: string): Promise<boolean> => {
    const p = part(r) as MediaPart;
    const boxKey = `${box.maxWidth ?? ""}x${box.maxHeight ?? ""}`;
    let byData = cache.get(boxKey);
    if (!byData) cache.set(boxKey, (byData = new Map()));
    try {
      let converted = byData.get(p.data);
      if (!converted) {
        const prepared = await prepare(decodeBase64(p.data), { ...prepareOptions, ...box, target, manyImageSafe: false });
        converted = { type: "media", mediaType: prepared.mediaType, data: encodeBase64(prepared.bytes) };
        if (prepared.width > 0) {
          converted.width = prepared.width;
          converted.height = prepared.height;
        }
        byData.set(p.data, converted);
      }
      const np: MediaPart = { ...converted };
      if (p.name !== undefined) np.name = p.name;
      set(r, np);
      return true;
    } catch (err) {
      remove(r, `${why}, and it could not be converted (${isPixfitError(err) ? err.code : String(err)})`);
      return false;
    }
  };

  // 1. Per-part rules.
  for (const r of refs()) {
    const p = part(r) as MediaPart;
    if (!isImage(r)) {
      const doc = target.document;
      if (!doc || !target.accepts.includes(p.mediaType)) remove(r, `${target.name} does not accept ${p.mediaType}`);
      else if (countedBytes(base64DecodedLength(p.data), doc.countsBase64) > doc.maxBytes) remove(r, `it is over ${target.name}'s ${doc.maxBytes}-byte document limit`);
      continue;
    }
    let size: { width: number; height: number };
    try {
      size = sizeOf(p);
    } catch (err) {
      remove(r, `it is unreadable (${isPixfitError(err) ? err.code : String(err)})`);
      continue;
    }
    const ok =
      target.accepts.includes(p.mediaType) &&
      size.width <= target.image.maxWidth &&
      size.height <= target.image.maxHeight &&
      countedBytes(base64DecodedLength(p.data), target.image.countsBase64) <= target.image.maxBytes;
    if (!ok) await redo(r, {}, `it did not meet ${target.name}'s per-image limits`);
  }

  // 2. Counts, oldest first.
  const groups = (): Ref[][] => {
    const all = refs();
    if (target.request.scope === "request") return [all];
    const byMessage = new Map<number, Ref[]>();
    for (const r of all) byMessage.set(r.mi, [...(byMessage.get(r.mi) ?? []), r]);
    return [...byMessage.values()];
  };
  for (const g of groups()) {
    const images = g.filter(isImage);
    const docs = g.filter((r) => !isImage(r));
    for (const r of images.slice(0, Math.max(0, images.length - target.request.maxImages)))
      remove(r, `${target.name} accepts at most ${target.request.maxImages} images per ${target.request.scope}`);
    for (const r of docs.slice(0, Math.max(0, docs.length - target.request.maxDocuments)))
      remove(r, `${target.name} accepts at most ${target.request.maxDocuments} documents per ${target.request.scope}`);
  }

  // 3. Many-image rule (counted over the whole request: Anthropic counts every turn).
  const many = target.manyImages;
  if (many && refs().filter(isImage).length > many.above) {
    for (const r of refs().filter(isImage)) {
      const s = sizeOf(part(r) as MediaPart);
      if (s.width > many.maxWidth || s.height > many.maxHeight)
        await redo(r, { maxWidth: many.maxWidth, maxHeight: many.maxHeight }, `a request with more than ${many.above} images needs each within ${many.maxWidth}x${many.maxHeight} px`);
    }
  }

  // 4. Request size.
  const budget = target.request.maxBytes - reserveBytes;
  const total = () => out.reduce((n, m) => n + m.parts.reduce((k, p) => k + (p.type === "text" ? p.text.length : p.data.length), 0), 0);
  for (let round = 0; total() > budget && round < 8; round++) {
    let shrunk = false;
    for (const r of refs().filter(isImage)) {
      if (total() <= budget) break;
      const s = sizeOf(part(r) as MediaPart);
      if (Math.max(s.width, s.height) / 2 < minLongEdge) continue;
      shrunk = (await redo(r, { maxWidth: Math.ceil(s.width / 2), maxHeight: Math.ceil(s.height / 2) }, "the request was over its size limit")) || shrunk;
    }
    if (!shrunk) break;
  }
  for (const r of refs()) {
    if (total() <= budget) break;
    remove(r, `the request would exceed ${target.name}'s ${target.request.maxBytes}-byte limit`);
  }
  return out;
}

function note(p: MediaPart, why: string): TextPart {
  const kind = p.mediaType === "application/pdf" ? "document" : "image";
  return { type: "text", text: `[${kind}${p.name ? ` "${p.name}"` : ""} removed: ${why}]` };
}
