/**
 * Size estimates: characters for compaction windows, and each API's documented token cost for an image.
 */
import { decodeBase64 } from "./base64.js";
import { PixfitError } from "./errors.js";
import type { MediaPart, ResultPart } from "./parts.js";
import { probe } from "./probe.js";
import { nativeSize, openaiHighDetailSize, openaiPatchSize, type Target, type VisionModel } from "./targets.js";

/** Characters {@link estimateChars} counts for each image or PDF part: 4800 (≈ 1200 tokens at 4 characters a token). */
export const MEDIA_PART_CHARS = 4800;

/**
 * A size estimate for compaction windows: a text part counts its length (UTF-16 code units); every media part counts
 * a fixed {@link MEDIA_PART_CHARS} = 4800, never its base64 length, so images do not distort the window. Never throws.
 */
export function estimateChars(parts: readonly ResultPart[]): number {
  let n = 0;
  for (const p of parts) n += p.type === "text" ? p.text.length : MEDIA_PART_CHARS;
  return n;
}

/** Options for {@link estimateTokens}. */
export interface EstimateTokensOptions {
  /** OpenAI tile models: `"low"` costs only the base tokens; `"high"` and `"auto"` use the tile formula. Default "auto". */
  detail?: "low" | "high" | "auto";
}

/**
 * The documented input-token cost of one image for `target`'s model, from its width and height in pixels
 * (for a media part without `width`/`height`, read from its header):
 * - Anthropic: resized to the native size (long edge and visual-token cap), then ⌈w/28⌉ · ⌈h/28⌉ — Claude vision guide
 *   "Calculate image costs", 2026;
 * - OpenAI tile models: `detail: "low"` → base (85); otherwise fit in 2048², short side ≤ 768, then
 *   base + perTile · ⌈w/512⌉ · ⌈h/512⌉ (85 + 170 · tiles) — OpenAI vision guide "Calculating costs", 2025;
 * - OpenAI patch models: ⌈w/32⌉ · ⌈h/32⌉ (capped at 1536 by scaling) × the model's multiplier — same guide;
 * - Gemini 2.x: ≤ 384 px on both sides → 258; otherwise ⌈w/768⌉ · ⌈h/768⌉ · 258 — Gemini "Image understanding", 2025;
 * - Gemini 3: the `media_resolution` budget (1120 by default) — Gemini 3 guide, 2026;
 * - no documented rule (`vision: null`): ⌈w · h / 750⌉, the long-standing area approximation.
 * @throws PixfitError `UNSUPPORTED_FORMAT` for a PDF part (its cost depends on its pages' text, which pixfit does not
 * read); `CORRUPT_IMAGE` when a part's header cannot be read.
 */
export function estimateTokens(media: { width: number; height: number } | MediaPart, target: Target, options: EstimateTokensOptions = {}): number {
  let width: number;
  let height: number;
  if ("type" in media && media.type === "media") {
    if (media.mediaType === "application/pdf")
      throw new PixfitError("UNSUPPORTED_FORMAT", "The token cost of a PDF depends on its pages and text; pixfit estimates images only.", { format: "pdf" });
    if (media.width !== undefined && media.height !== undefined) ({ width, height } = media);
    else ({ width, height } = probe(decodeBase64(media.data)));
  } else ({ width, height } = media as { width: number; height: number });
  return tokensFor(width, height, target.vision, options.detail ?? "auto");
}

function tokensFor(width: number, height: number, vision: VisionModel | null, detail: "low" | "high" | "auto"): number {
  if (width <= 0 || height <= 0) return 0;
  if (!vision) return Math.ceil((width * height) / 750);
  switch (vision.kind) {
    case "anthropic": {
      const s = nativeSize(width, height, vision);
      return Math.ceil(s.width / vision.patch) * Math.ceil(s.height / vision.patch);
    }
    case "openai-tiles": {
      if (detail === "low") return vision.base;
      const s = openaiHighDetailSize(width, height, vision.fit, vision.shortSide);
      return vision.base + vision.perTile * Math.ceil(s.width / vision.tile) * Math.ceil(s.height / vision.tile);
    }
    case "openai-patches": {
      const s = openaiPatchSize(width, height, vision.patch, vision.maxPatches);
      const patches = Math.min(vision.maxPatches, Math.ceil(s.width / vision.patch) * Math.ceil(s.height / vision.patch));
      return Math.ceil(patches * vision.multiplier);
    }
    case "gemini-tiles":
      if (width <= vision.small && height <= vision.small) return vision.perTile;
      return Math.ceil(width / vision.tile) * Math.ceil(height / vision.tile) * vision.perTile;
    case "gemini-fixed":
      return vision.tokens;
  }
}
