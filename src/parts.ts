/**
 * Tool results as typed parts: what a tool handler returns (text, image and PDF bytes or paths) becomes
 * `ResultPart[]` that fit a target API. Attachments that cannot be used become short text notes; the turn is never
 * aborted and text is never lost.
 */
import { readAttachment, readFileBytes, sniffFile, baseName } from "./attachment.js";
import { encodeBase64 } from "./base64.js";
import { identify } from "./detect.js";
import { asCorrupt, isPixfitError } from "./errors.js";
import { orientedSize } from "./orient.js";
import { checkDocument, prepare, prepareDefaults, type PrepareOptions } from "./prepare.js";
import type { Target } from "./targets.js";
import { pdf } from "../codecs/pdf.js";
import type { MediaType } from "./types.js";

/** A text part. */
export interface TextPart {
  type: "text";
  text: string;
}

/** An image or PDF part. `data` is base64 (RFC 4648 §4) without a `data:` prefix. */
export interface MediaPart {
  type: "media";
  /** Detected from the bytes' signature, never taken from a caller's hint. */
  mediaType: MediaType;
  data: string;
  /** File name, when known (used for PDFs' `filename` and in notes). */
  name?: string;
  /** Pixels (images only), when known. */
  width?: number;
  /** Pixels (images only), when known. */
  height?: number;
}

/** One part of a tool result. */
export type ResultPart = TextPart | MediaPart;

/** A tool's result, ready for any serializer. */
export interface ToolResult {
  /** The id of the tool call this answers (`tool_use_id`, `tool_call_id`, `call_id`, `toolUseId`). */
  toolCallId: string;
  /** The tool's name; Gemini's `functionResponse.name` needs it (defaults to `toolCallId` there). */
  name?: string;
  parts: ResultPart[];
  isError?: boolean;
}

/** A file a tool returns: bytes or a path (Node, Bun, Deno). `mediaType` is a hint only; magic bytes decide. */
export interface Attachment {
  bytes?: Uint8Array;
  path?: string;
  mediaType?: string;
  /** Name used in notes and as the PDF file name; default the path's last segment or "attachment N". */
  name?: string;
}

/** What a tool handler may return. */
export type ToolOutput = string | { text?: string; attachments?: readonly Attachment[] };

/** Options for {@link toParts}: a target, the {@link PrepareOptions} (except `target`) and `coordinateNote`. */
export interface ToPartsOptions extends Omit<PrepareOptions, "target"> {
  target: Target;
  /**
   * After an image that was resized, add a text part giving the original and displayed sizes and the scale, so the
   * model's coordinates can be mapped back. Default true.
   */
  coordinateNote?: boolean;
  /**
   * Decode an image that `prepare` passed through untouched (it fitted, so it was never decoded) and drop it as
   * `CORRUPT_IMAGE` if that fails: a truncated file would otherwise reach the API, which rejects the request. Default true.
   */
  verify?: boolean;
}

/**
 * Turns a tool handler's output into parts for `options.target`.
 * - a string → one text part; `{ text, attachments }` → the text part (if any) first, then each attachment in order;
 * - each attachment goes through `prepare(bytes, { target, ...options })`: transcoded, resized and re-encoded as the
 *   target needs; the written media type is always the detected one;
 * - an attachment that cannot be used (unreadable, unknown type, corrupt, over a limit, beyond the target's image or
 *   document count or request size) is replaced by one text part naming it and the reason, e.g.
 *   `[attachment "x.heic" omitted: HEIC images are not supported ... (UNSUPPORTED_FORMAT)]`;
 * - an image passed through untouched is decoded once to make sure it is not truncated or corrupt (`verify: false`
 *   skips this);
 * - a resized image is followed by a coordinate note unless `coordinateNote: false`.
 * Never throws for a bad attachment and never modifies `input`. Paths need Node, Bun or Deno.
 */
export async function toParts(input: ToolOutput, options: ToPartsOptions): Promise<ResultPart[]> {
  const { target, coordinateNote = true, verify = true, ...prepareOptions } = options;
  const parts: ResultPart[] = [];
  if (typeof input === "string") return [{ type: "text", text: input }];
  if (input.text !== undefined && input.text !== "") parts.push({ type: "text", text: input.text });
  const attachments = input.attachments ?? [];
  let images = 0;
  let documents = 0;
  let requestBytes = 0;
  for (let i = 0; i < attachments.length; i++) {
    const a = attachments[i];
    const name = a.name ?? (a.path !== undefined ? baseName(a.path) : `attachment ${i + 1}`);
    try {
      const part = await attachmentPart(a, name, target, prepareOptions, verify);
      const isImage = part.media.mediaType !== "application/pdf";
      if (isImage && images >= target.request.maxImages) {
        parts.push(omitted(name, `${target.name} accepts at most ${target.request.maxImages} images per ${target.request.scope}`));
        continue;
      }
      if (!isImage && documents >= target.request.maxDocuments) {
        parts.push(omitted(name, `${target.name} accepts at most ${target.request.maxDocuments} documents per ${target.request.scope}`));
        continue;
      }
      const size = part.media.data.length;
      if (requestBytes + size > target.request.maxBytes) {
        parts.push(omitted(name, `it would take the request past ${target.name}'s ${target.request.maxBytes}-byte limit`));
        continue;
      }
      requestBytes += size;
      if (isImage) images++;
      else documents++;
      parts.push(part.media);
      if (coordinateNote && part.note) parts.push({ type: "text", text: part.note });
    } catch (err) {
      parts.push(omitted(name, reason(err)));
    }
  }
  return parts;
}

async function attachmentPart(
  a: Attachment, name: string, target: Target, options: Omit<PrepareOptions, "target">, verify: boolean,
): Promise<{ media: MediaPart; note?: string }> {
  const maxInputBytes = options.maxInputBytes ?? prepareDefaults.maxInputBytes;
  let bytes = a.bytes;
  if (!bytes) {
    if (a.path === undefined) throw new TypeError("the attachment has neither bytes nor a path");
    const sniffed = await sniffFile(a.path, maxInputBytes);
    if (sniffed.mediaType === "application/pdf") {
      // A PDF passes through unchanged: check the target's rules, then stream it to base64.
      checkDocument(pdf, sniffed.size, target);
      const part = await readAttachment(a.path, { maxInputBytes, name });
      return { media: { type: "media", mediaType: part.mediaType, data: part.data, name } };
    }
    bytes = await readFileBytes(a.path, maxInputBytes);
  }
  const out = await prepare(bytes, { ...options, target });
  if (verify && out.bytes === bytes && out.width > 0) await verifyDecodes(bytes, options.maxInputPixels ?? prepareDefaults.maxInputPixels);
  const media: MediaPart = { type: "media", mediaType: out.mediaType, data: encodeBase64(out.bytes), name };
  if (out.width > 0) {
    media.width = out.width;
    media.height = out.height;
  }
  let note: string | undefined;
  if (out.resized) {
    const o = orientedSize(out.original.width, out.original.height, out.orientation);
    const scale = out.width / o.width;
    note =
      `[image "${name}" was resized from ${o.width}x${o.height} to ${out.width}x${out.height} px (scale ${round(scale, 4)}); ` +
      `multiply coordinates in it by ${round(1 / scale, 4)} to get original pixels]`;
  }
  return { media, note };
}

/** Decodes `bytes` once and discards the pixels. @throws PixfitError `CORRUPT_IMAGE`. */
async function verifyDecodes(bytes: Uint8Array, maxPixels: number): Promise<void> {
  const codec = identify(bytes);
  if (!codec.decode) return;
  try {
    await codec.decode(bytes, { maxPixels });
  } catch (err) {
    throw asCorrupt(err, codec.format);
  }
}

function omitted(name: string, why: string): TextPart {
  return { type: "text", text: `[attachment "${name}" omitted: ${why}]` };
}

function reason(err: unknown): string {
  if (isPixfitError(err)) return `${err.message} (${err.code})`;
  const e = err as { message?: string; code?: string };
  const msg = e && typeof e.message === "string" ? e.message : String(err);
  return typeof e?.code === "string" ? `${msg} (${e.code})` : msg;
}

function round(x: number, digits: number): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
