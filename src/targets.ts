/**
 * Model-API presets as plain data: what each API accepts and the limits it enforces.
 *
 * Every value carries its source and the date it was checked. Providers change these limits (Anthropic's per-image
 * limit went from 5 MB to 10 MB of base64 on its own API during 2025–2026 and stayed at 5 MB on Bedrock and Vertex),
 * so every value can be overridden with {@link defineTarget}.
 *
 * Units: bytes (MB here means MiB, 1 048 576 bytes, as the APIs' own error messages count them:
 * "image exceeds 5 MB maximum: 5272940 bytes > 5242880 bytes"), pixels, counts.
 */
import type { ImageMediaType, MediaType } from "./types.js";

const MiB = 1024 * 1024;

/** Which request shape a target's serializer writes. */
export type TargetApi = "anthropic-messages" | "openai-chat" | "openai-responses" | "gemini" | "bedrock-converse";

/**
 * Where a tool's media may go in a request:
 * - `"tool-result"`: inside the tool-result block itself (Anthropic `tool_result`, Responses `function_call_output`,
 *   Gemini 3 `functionResponse.parts`, Bedrock `toolResult.content`);
 * - `"user-message"`: not allowed in the tool message; sent in a following `role: "user"` message (Chat Completions);
 * - `"sibling-parts"`: as ordinary parts after the tool result in the same turn (Gemini 2.x).
 */
export type MediaPlacement = "tool-result" | "user-message" | "sibling-parts";

/**
 * How a model family sizes and bills an image; drives `prepare(..., { size: "native" })` and `estimateTokens`.
 * - `anthropic`: the image is scaled down (aspect kept) until its long edge is ≤ `maxLongEdge` and
 *   ⌈w/28⌉·⌈h/28⌉ ≤ `maxPatches`; it then costs ⌈w/28⌉·⌈h/28⌉ tokens.
 * - `openai-tiles`: `detail: "high"` fits the image in `fit` × `fit`, then scales the short side down to
 *   `shortSide`; cost = `base` + `perTile` · (512-px tiles); `detail: "low"` costs `base`.
 * - `openai-patches`: 32-px patches capped at `maxPatches` (scaled down to fit), cost = patches · `multiplier`.
 * - `gemini-tiles`: ≤ `small` px on both sides costs `perTile`; otherwise ⌈w/768⌉·⌈h/768⌉ tiles at `perTile` each.
 * - `gemini-fixed`: a fixed cost per image (the `media_resolution` budget).
 */
export type VisionModel =
  | { kind: "anthropic"; patch: number; maxLongEdge: number; maxPatches: number }
  | { kind: "openai-tiles"; fit: number; shortSide: number; tile: number; base: number; perTile: number }
  | { kind: "openai-patches"; patch: number; maxPatches: number; multiplier: number }
  | { kind: "gemini-tiles"; small: number; tile: number; perTile: number }
  | { kind: "gemini-fixed"; tokens: number };

/** Limits for one model API. All fields are plain data; build variants with {@link defineTarget}. */
export interface Target {
  /** Short identifier, used in notes and errors ("anthropic", "openai-chat", ...). */
  readonly name: string;
  /** The request shape. */
  readonly api: TargetApi;
  /** Media types the API accepts (images and documents). Others are transcoded (images) or dropped (documents). */
  readonly accepts: readonly MediaType[];
  /** Per-image limits. */
  readonly image: {
    /** Largest accepted image, in bytes as counted per `countsBase64`. */
    readonly maxBytes: number;
    /** True when the API measures the base64 text (4·⌈n/3⌉ characters), false when it measures raw bytes. */
    readonly countsBase64: boolean;
    /** Largest accepted width in pixels. */
    readonly maxWidth: number;
    /** Largest accepted height in pixels. */
    readonly maxHeight: number;
  };
  /** When a request holds more than `above` images (all turns, tool results included), each must fit in `maxWidth` × `maxHeight`. */
  readonly manyImages: { readonly above: number; readonly maxWidth: number; readonly maxHeight: number } | null;
  /** Per-document (PDF) limits; `null` when the API takes no documents. */
  readonly document: { readonly maxBytes: number; readonly countsBase64: boolean } | null;
  /** Request-level limits; `scope: "message"` when the API counts per message (Bedrock Converse). */
  readonly request: {
    readonly maxImages: number;
    readonly maxDocuments: number;
    /** Request body, in bytes (JSON, so media counts as base64). */
    readonly maxBytes: number;
    readonly scope: "request" | "message";
  };
  /** Where a tool result's media may go. */
  readonly mediaIn: MediaPlacement;
  /** How the model sizes and bills images; `null` when undocumented. */
  readonly vision: VisionModel | null;
}

/** A partial {@link Target} for {@link defineTarget}. Nested limit objects merge; `vision` and `accepts` replace. */
export interface TargetOverrides {
  name?: string;
  api?: TargetApi;
  accepts?: readonly MediaType[];
  image?: Partial<Target["image"]>;
  /** Give the whole rule when the base has none; `null` removes it. */
  manyImages?: Partial<NonNullable<Target["manyImages"]>> | null;
  /** Give the whole rule when the base has none; `null` removes it. */
  document?: Partial<NonNullable<Target["document"]>> | null;
  request?: Partial<Target["request"]>;
  mediaIn?: MediaPlacement;
  vision?: VisionModel | null;
}

/**
 * A new target: `base` with `overrides` applied (objects merged one level deep, `null` clears a rule).
 * `base` is never modified.
 * @example defineTarget(targets.anthropic, { image: { maxBytes: 5 * 1024 * 1024 } })
 */
export function defineTarget(base: Target, overrides: TargetOverrides): Target {
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === undefined) continue;
    const cur = (base as unknown as Record<string, unknown>)[k];
    const merge = k !== "vision" && v !== null && typeof v === "object" && !Array.isArray(v) && cur !== null && typeof cur === "object";
    // Copies, so freezing the result never freezes the caller's objects.
    out[k] = merge ? { ...cur, ...v } : Array.isArray(v) ? [...v] : v !== null && typeof v === "object" ? { ...v } : v;
  }
  return frozen(out as unknown as Target);
}

/** Freezes a preset and its nested limit objects, so a shared preset cannot be changed by accident. */
function frozen(t: Target): Target {
  for (const v of Object.values(t)) if (v !== null && typeof v === "object") Object.freeze(v);
  return Object.freeze(t);
}

const CLAUDE_IMAGES: readonly ImageMediaType[] = ["image/jpeg", "image/png", "image/gif", "image/webp"];

/**
 * Claude's vision rule for most current models (Sonnet 4.x, Haiku 4.5, Opus ≤ 4.6): long edge ≤ 1568 px and
 * ≤ 1568 visual tokens of 28 × 28 px. Opus 4.7 and later: `{ maxLongEdge: 2576, maxPatches: 4784 }`.
 * Source: platform.claude.com/docs/en/build-with-claude/vision ("Claude views images in patches ... ⌈width/28⌉ ×
 * ⌈height/28⌉ visual tokens"; "maximal native image resolution"), checked 2026.
 */
export const claudeVision: VisionModel = { kind: "anthropic", patch: 28, maxLongEdge: 1568, maxPatches: 1568 };
/** Claude Opus 4.7+ native resolution: 2576 px long edge, 4784 visual tokens. Same source as {@link claudeVision}. */
export const claudeVisionHighRes: VisionModel = { kind: "anthropic", patch: 28, maxLongEdge: 2576, maxPatches: 4784 };

/**
 * Anthropic Messages API, direct (api.anthropic.com).
 * - accepts JPEG, PNG, GIF, WEBP, PDF — vision and PDF-support guides, checked 2026;
 * - image ≤ 10 MiB of base64 (raised from 5 MiB, whose error reads "image exceeds 5 MB maximum: … > 5242880 bytes";
 *   the 10 MB figure is the direct API's as of 2026) — override with 5 MiB for older deployments;
 * - 8000 × 8000 px per image; more than 20 images in a request → each ≤ 2000 × 2000 px — vision guide
 *   ("If you submit more than 20 images in one API request, this limit is reduced to 2000x2000 px"), 2025–2026;
 * - 100 images per request (200k-context models; 600 for others) — vision guide "General limits", 2026;
 * - request ≤ 32 MB (Messages endpoint), PDFs count toward it, ≤ 100 PDF pages — API overview "Request size limits"
 *   and PDF-support guide, 2025–2026; documents per request are bounded only by those, here 100.
 */
const anthropic: Target = frozen({
  name: "anthropic",
  api: "anthropic-messages",
  accepts: [...CLAUDE_IMAGES, "application/pdf"],
  image: { maxBytes: 10 * MiB, countsBase64: true, maxWidth: 8000, maxHeight: 8000 },
  manyImages: { above: 20, maxWidth: 2000, maxHeight: 2000 },
  document: { maxBytes: 32 * MiB, countsBase64: true },
  request: { maxImages: 100, maxDocuments: 100, maxBytes: 32 * MiB, scope: "request" },
  mediaIn: "tool-result",
  vision: claudeVision,
} satisfies Target);

/**
 * Claude through Amazon Bedrock (InvokeModel with the Messages body). Per image 5 MiB of base64 (the Messages
 * schema's limit; Bedrock did not take the 2026 raise); request payload ≤ 20 MB — Bedrock user guide, "Anthropic Claude
 * Messages API: Request and Response" ("The maximum size of the payload you can send in a request is 20MB"), 2025.
 * Other values as {@link targets}.anthropic.
 */
const anthropicBedrock: Target = defineTarget(anthropic, {
  name: "anthropic-bedrock",
  image: { maxBytes: 5 * MiB },
  document: { maxBytes: 20 * MiB },
  request: { maxBytes: 20 * MiB },
});

/**
 * Claude through Google Vertex AI. Per image 5 MiB of base64 (as Bedrock). Anthropic's vision guide says the request
 * limit is "lower on some partner-operated platforms, for example, Amazon Bedrock and Vertex AI" (2026) without a
 * figure; 20 MiB is used here as the conservative value — override it if your quota says otherwise.
 */
const anthropicVertex: Target = defineTarget(anthropicBedrock, { name: "anthropic-vertex" });

/**
 * OpenAI Chat Completions.
 * - images PNG, JPEG, WEBP, non-animated GIF; up to 500 images and 50 MB of payload per request — OpenAI "Images and
 *   vision" guide, "Image input requirements", 2025; per-image limit 20 MB (same guide, earlier edition), raw bytes;
 * - dimensions: `detail: "high"` fits the image in 2048 × 2048 before use, so 2048 is the largest useful size (no hard
 *   reject limit is documented);
 * - PDFs as `file` content parts; ≤ 100 pages and 32 MB of file content per request — "File inputs" guide, 2025;
 * - images are not allowed in `role: "tool"` messages (content must be text), so media goes in a following user
 *   message — API reference `ChatCompletionToolMessageParam`, 2025–2026;
 * - tokens (gpt-4o, gpt-4.1, gpt-5 family): 85 base + 170 per 512-px tile — vision guide "Calculating costs", 2025.
 */
const openaiChat: Target = frozen({
  name: "openai-chat",
  api: "openai-chat",
  accepts: ["image/png", "image/jpeg", "image/webp", "image/gif", "application/pdf"],
  image: { maxBytes: 20 * MiB, countsBase64: false, maxWidth: 2048, maxHeight: 2048 },
  manyImages: null,
  document: { maxBytes: 32 * MiB, countsBase64: false },
  request: { maxImages: 500, maxDocuments: 100, maxBytes: 50 * MiB, scope: "request" },
  mediaIn: "user-message",
  vision: { kind: "openai-tiles", fit: 2048, shortSide: 768, tile: 512, base: 85, perTile: 170 },
} satisfies Target);

/**
 * OpenAI Responses API: as {@link targets}.openaiChat, but `function_call_output.output` may hold `input_image`
 * and `input_file` items directly — API reference `ResponseInputItem.FunctionCallOutput`, 2025–2026.
 */
const openaiResponses: Target = defineTarget(openaiChat, { name: "openai-responses", api: "openai-responses", mediaIn: "tool-result" });

/**
 * Google Gemini 2.x (Gemini API, generateContent).
 * - images PNG, JPEG, WEBP (and HEIC/HEIF, which pixfit does not produce); no GIF or BMP; PDFs — "Image understanding"
 *   and "Document understanding" guides, 2025;
 * - inline data: total request ≤ 20 MB — "Image understanding: passing inline image data", 2025 (counted as base64,
 *   since the request is JSON); up to 3000 images per request (Gemini 2.5, Vertex "Image understanding", 2025);
 * - no documented dimension limit (large images are scaled); 8000 px is kept as a sane bound;
 * - tokens: ≤ 384 px on both sides = 258 tokens, otherwise 768 × 768 tiles at 258 tokens each — "Image
 *   understanding: technical details", 2025;
 * - media only as ordinary parts: function responses carry JSON only before Gemini 3.
 */
const gemini2: Target = frozen({
  name: "gemini-2",
  api: "gemini",
  accepts: ["image/png", "image/jpeg", "image/webp", "application/pdf"],
  image: { maxBytes: 20 * MiB, countsBase64: true, maxWidth: 8000, maxHeight: 8000 },
  manyImages: null,
  document: { maxBytes: 20 * MiB, countsBase64: true },
  request: { maxImages: 3000, maxDocuments: 1000, maxBytes: 20 * MiB, scope: "request" },
  mediaIn: "sibling-parts",
  vision: { kind: "gemini-tiles", small: 384, tile: 768, perTile: 258 },
} satisfies Target);

/**
 * Google Gemini 3 and later: as {@link targets}.gemini2, plus multimodal function responses
 * (`functionResponse.parts[].inlineData` with image/png, image/jpeg, image/webp, application/pdf) — Gemini 3 developer
 * guide, "Multimodal function responses", 2026. Images cost the `media_resolution` budget, 1120 tokens by default
 * (`high`; 560 `medium`, 280 `low`) — Gemini 3 guide and Vertex "Image understanding" ("Default resolution tokens:
 * 1120"), 2026. Up to 900 images per prompt (Gemini 3 Pro, Vertex), 2026.
 */
const gemini3: Target = defineTarget(gemini2, {
  name: "gemini-3",
  request: { maxImages: 900 },
  mediaIn: "tool-result",
  vision: { kind: "gemini-fixed", tokens: 1120 },
});

/**
 * AWS Bedrock Converse API (any model).
 * - images png, jpeg, gif, webp; per message up to 20 images, each ≤ 3.75 MB raw and ≤ 8000 × 8000 px; up to 5
 *   documents, each ≤ 4.5 MB — API reference "Message" (`content` restrictions), 2025–2026;
 * - documents in tool results as `document` blocks (format "pdf", a restricted `name`); bytes are raw in the SDK
 *   (`Uint8Array`) and base64 on the wire — API reference `ToolResultContentBlock`, `DocumentBlock`;
 * - request ≤ 20 MB (as InvokeModel's payload limit, Bedrock user guide 2025);
 * - the Anthropic many-image rule is kept because Claude models enforce it behind Converse too.
 */
const bedrockConverse: Target = frozen({
  name: "bedrock-converse",
  api: "bedrock-converse",
  accepts: ["image/png", "image/jpeg", "image/gif", "image/webp", "application/pdf"],
  image: { maxBytes: 3.75 * MiB, countsBase64: false, maxWidth: 8000, maxHeight: 8000 },
  manyImages: { above: 20, maxWidth: 2000, maxHeight: 2000 },
  document: { maxBytes: 4.5 * MiB, countsBase64: false },
  request: { maxImages: 20, maxDocuments: 5, maxBytes: 20 * MiB, scope: "message" },
  mediaIn: "tool-result",
  vision: claudeVision,
} satisfies Target);

/**
 * A generic OpenAI-compatible server (vLLM, Ollama, llama.cpp, LiteLLM, ...): Chat Completions shape, the common
 * subset only — PNG and JPEG, no PDFs, 5 MiB raw per image, 2000 × 2000 px, 20 images and 20 MiB per request. These are
 * conservative choices rather than any one server's documented limits; override them for your server.
 */
const openaiCompatible: Target = frozen({
  name: "openai-compatible",
  api: "openai-chat",
  accepts: ["image/png", "image/jpeg"],
  image: { maxBytes: 5 * MiB, countsBase64: false, maxWidth: 2000, maxHeight: 2000 },
  manyImages: null,
  document: null,
  request: { maxImages: 20, maxDocuments: 0, maxBytes: 20 * MiB, scope: "request" },
  mediaIn: "user-message",
  vision: null,
} satisfies Target);

/** The presets, keyed by name. Each is frozen; derive variants with {@link defineTarget}. */
export const targets = Object.freeze({
  anthropic,
  anthropicBedrock,
  anthropicVertex,
  openaiChat,
  openaiResponses,
  gemini2,
  gemini3,
  bedrockConverse,
  openaiCompatible,
});

/** The bytes the target counts for a file of `byteLength` raw bytes (base64 length when `countsBase64`). */
export function countedBytes(byteLength: number, countsBase64: boolean): number {
  return countsBase64 ? 4 * Math.ceil(byteLength / 3) : byteLength;
}

/**
 * The largest size (aspect kept, never enlarged) at which `vision` keeps an image without downscaling it itself,
 * so pixels beyond it only cost bytes. Width and height in pixels, after EXIF orientation.
 * Returns the input size when `vision` is `null` or has no documented resize rule (Gemini).
 */
export function nativeSize(width: number, height: number, vision: VisionModel | null): { width: number; height: number } {
  if (!vision) return { width, height };
  switch (vision.kind) {
    case "anthropic": {
      const long = Math.max(width, height);
      let scale = Math.min(1, vision.maxLongEdge / long, Math.sqrt((vision.maxPatches * vision.patch * vision.patch) / (width * height)));
      let size = scaled(width, height, scale);
      const patches = (s: { width: number; height: number }) => Math.ceil(s.width / vision.patch) * Math.ceil(s.height / vision.patch);
      while (patches(size) > vision.maxPatches && scale > 0) {
        scale *= 0.995;
        size = scaled(width, height, scale);
      }
      return size;
    }
    case "openai-tiles":
      return openaiHighDetailSize(width, height, vision.fit, vision.shortSide);
    case "openai-patches":
      return openaiPatchSize(width, height, vision.patch, vision.maxPatches);
    default:
      return { width, height };
  }
}

/** OpenAI `detail: "high"`: fit in `fit` × `fit`, then shrink so the short side is at most `shortSide`. */
export function openaiHighDetailSize(width: number, height: number, fit: number, shortSide: number): { width: number; height: number } {
  let scale = Math.min(1, fit / Math.max(width, height));
  const short = Math.min(width, height) * scale;
  if (short > shortSide) scale *= shortSide / short;
  return scaled(width, height, scale);
}

/**
 * OpenAI patch models (gpt-4.1-mini, gpt-4.1-nano, o4-mini, gpt-5-mini, ...): when ⌈w/32⌉·⌈h/32⌉ exceeds
 * `maxPatches`, scale by √(32²·maxPatches / (w·h)), then shrink further so whole patches fit — vision guide
 * "Calculating costs", 2025.
 */
export function openaiPatchSize(width: number, height: number, patch: number, maxPatches: number): { width: number; height: number } {
  if (Math.ceil(width / patch) * Math.ceil(height / patch) <= maxPatches) return { width, height };
  let shrink = Math.sqrt((patch * patch * maxPatches) / (width * height));
  const wp = (width * shrink) / patch;
  const hp = (height * shrink) / patch;
  shrink *= Math.min(Math.floor(wp) / wp, Math.floor(hp) / hp);
  return { width: Math.max(1, Math.floor(width * shrink)), height: Math.max(1, Math.floor(height * shrink)) };
}

function scaled(width: number, height: number, scale: number): { width: number; height: number } {
  if (scale >= 1) return { width, height };
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}
