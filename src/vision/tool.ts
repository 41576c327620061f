/**
 * The `vision` tool: a text-only agent asks a vision model about local images and gets text back.
 *
 * Its shape is the pi coding agent's `ToolDefinition` (package `@mariozechner/pi-coding-agent`, now
 * `@earendil-works/pi-coding-agent`; `packages/coding-agent/src/core/extensions/types.ts` and
 * `packages/coding-agent/docs/extensions.md` in github.com/earendil-works/pi, read 2026), mirrored here as
 * structural interfaces so pixfit does not depend on the agent. {@link runVision} is the same logic as a plain
 * function for any other agent.
 */
import { Type, type Static } from "typebox";
import { Value } from "typebox/value";
import type { VisionConfig } from "./config.js";
import { VisionError, asVisionError } from "./errors.js";
import { loadAndValidateImages, type LoadImagesOptions, type LoadedImage, type VisionImageMeta } from "./images.js";
import { buildRequestBody, type ChatCompletionResponse, type ImageDetail } from "./request.js";
import { createVisionClient, type VisionClient } from "./client.js";
import type { Target } from "../targets.js";

/** The tool's parameters as a TypeBox (`typebox` v1) schema; `detail` is a union of literals. */
export const visionParameters = Type.Object({
  prompt: Type.String({ minLength: 1, description: "What to ask about the images, e.g. \"What error message does the dialog show?\"" }),
  images: Type.Array(Type.String({ minLength: 1 }), {
    minItems: 1,
    description: "Paths of local image files (PNG, JPEG, GIF, WEBP, BMP), absolute or relative to the working directory.",
  }),
  detail: Type.Optional(
    Type.Union([Type.Literal("low"), Type.Literal("high"), Type.Literal("original"), Type.Literal("auto")], {
      description: "Image detail level sent with every image: low (fewer tokens), high, original or auto. Omit for the endpoint's default.",
    }),
  ),
  thinking: Type.Optional(
    Type.Boolean({ description: "Let the vision model reason before answering (slower; better for counting, small text, comparisons). Default from VISION_THINKING." }),
  ),
});

/** Parameters of one call, as the schema types them. */
export type VisionParams = Static<typeof visionParameters>;

/** Token counts of the vision call as Chat Completions reported them (0 when absent). */
export interface VisionTokenUsage {
  promptTokens: number;
  completionTokens: number;
  /** Subset of `completionTokens` (`usage.completion_tokens_details.reasoning_tokens`). */
  reasoningTokens: number;
  totalTokens: number;
}

/** `details` of a tool result: what was asked and how, without image data. */
export interface VisionDetails {
  /** The model id requested (`VISION_MODEL`). */
  model: string;
  /** Whether thinking was requested (parameter, else config). */
  thinking: boolean;
  /** Present only when the caller gave `detail`. */
  detail?: ImageDetail;
  images: VisionImageMeta[];
  /** Milliseconds from sending the request to having the parsed answer (HTTP round trip only; loading and preparing the images is not included). */
  durationMs: number;
  /** `finish_reason` of the first choice (`stop`, `length`, ...), or null when the endpoint gave none. */
  finishReason: string | null;
  usage: VisionTokenUsage;
}

/**
 * Usage in the shape the pi agent accounts nested model calls in (`Usage` of `@earendil-works/pi-ai`):
 * `input` = prompt tokens, `output` = completion tokens (reasoning included), `reasoning` = reasoning tokens.
 * Cache counts are 0 and costs are 0 because the tool does not know the endpoint's prices.
 */
export interface AgentUsage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning?: number;
  totalTokens: number;
  cost: { input: number; output: number; cacheRead: number; cacheWrite: number; total: number };
}

/** A text content block (pi-ai `TextContent`). */
export interface TextContent {
  type: "text";
  text: string;
}

/** What `execute` returns (pi-agent-core `AgentToolResult`). */
export interface VisionToolResult {
  content: TextContent[];
  details: VisionDetails;
  usage?: AgentUsage;
}

/** The part of pi's `ExtensionContext` the tool reads. */
export interface ToolContextLike {
  cwd?: string;
}

/**
 * Structural mirror of pi's `ToolDefinition<TParams, TDetails>`: `name`, `label`, `description`, `promptSnippet`,
 * `promptGuidelines`, `parameters` (a TypeBox schema), and
 * `execute(toolCallId, params, signal, onUpdate, ctx)`.
 */
export interface VisionToolDefinition {
  name: "vision";
  label: string;
  description: string;
  promptSnippet: string;
  promptGuidelines: string[];
  parameters: typeof visionParameters;
  execute(
    toolCallId: string,
    params: VisionParams,
    signal?: AbortSignal,
    onUpdate?: unknown,
    ctx?: ToolContextLike,
  ): Promise<VisionToolResult>;
}

/** Dependencies of {@link runVision} and {@link createVisionTool}; each defaults to the real one. */
export interface VisionToolOptions {
  /** Sends the request; default `createVisionClient(config)`. */
  client?: VisionClient;
  /** Loads images; default {@link loadAndValidateImages}. */
  loadImages?: (paths: readonly string[], cwd: string, options: LoadImagesOptions) => Promise<LoadedImage[]>;
  /** Limits images are prepared for; default `targets.openaiCompatible` (see `defaultVisionTarget`). */
  target?: Target;
  /** Directory for relative paths when the agent's context gives none; default `process.cwd()` where it exists. */
  cwd?: string;
  /** Clock for `durationMs`; default `Date.now`. */
  now?: () => number;
}

/** Tool text shown to the model. Every guideline names the tool, because pi appends them without a prefix. */
export const visionToolText = {
  name: "vision",
  label: "Vision",
  description:
    "Send local image files to the configured vision model and get its answer as text. Use it when you need to know " +
    "what an image shows (screenshot, photo, diagram, chart, scanned page) and you cannot read images yourself. " +
    "Images are scaled down to at most 2000 × 2000 pixels before sending.",
  promptSnippet: "Ask a vision model a question about local image files and get a text answer",
  promptGuidelines: [
    "Use vision when you need the content of a local image file (screenshot, photo, diagram, chart, scanned page) and cannot read images yourself.",
    "Use vision with a specific question as the prompt (for example \"Which error message does the dialog show?\") rather than \"describe this image\", and pass every image the question needs in one vision call.",
    "Use vision with thinking: true for counting, reading small text, comparing images, or after vision returned an empty answer.",
    "Use vision with detail: \"low\" when a rough overview of a large image is enough; it costs fewer tokens.",
  ],
} as const;

/**
 * Runs one vision call, the tool's whole logic as a plain function:
 * validate `params` against {@link visionParameters} → resolve `thinking` (parameter, else `config.thinking`) →
 * load and prepare the images (paths relative to `cwd`; a leading `@`, which some models add, is dropped) → build
 * the body → call the client → read the answer.
 *
 * Answer rules, in order: non-empty `content` is returned as text; empty content with `finish_reason: "length"` is
 * a `response` error naming `VISION_MAX_TOKENS` (and, with thinking on, that reasoning tokens count toward it);
 * any other empty content is a `response` error suggesting a retry with `thinking: true`. `reasoning_content` is
 * never returned.
 *
 * @throws VisionError, always: `params`, `image`, `http`, `timeout`, `aborted`, `response`, or `unexpected` for
 * anything else (message without stack trace; the API key never appears).
 */
export async function runVision(
  params: unknown,
  config: VisionConfig,
  options: VisionToolOptions & { signal?: AbortSignal } = {},
): Promise<VisionToolResult> {
  try {
    return await runUnwrapped(params, config, options);
  } catch (err) {
    // A client or loader that rejects with its own AbortError after the caller aborted: report the abort.
    if (options.signal?.aborted && !(err instanceof VisionError))
      throw new VisionError("aborted", "The vision call was aborted.", { cause: err });
    throw asVisionError(err, config.apiKey);
  }
}

async function runUnwrapped(params: unknown, config: VisionConfig, options: VisionToolOptions & { signal?: AbortSignal }): Promise<VisionToolResult> {
  const p = checkParams(params);
  const { signal } = options;
  if (signal?.aborted) throw new VisionError("aborted", "The vision call was aborted before it started.");
  const thinking = p.thinking ?? config.thinking;
  const cwd = options.cwd ?? defaultCwd();
  if (cwd === undefined)
    throw new VisionError("params", "No working directory to resolve image paths against; pass absolute paths or set the cwd option.");

  const paths = p.images.map((path) => (path.startsWith("@") ? path.slice(1) : path));
  const loadImages = options.loadImages ?? loadAndValidateImages;
  const images = await loadImages(paths, cwd, { signal, target: options.target });
  if (signal?.aborted) throw new VisionError("aborted", "The vision call was aborted while loading images.");

  const body = buildRequestBody({ prompt: p.prompt, images, detail: p.detail, thinking }, config);
  const client = options.client ?? createVisionClient(config);
  const now = options.now ?? Date.now;
  const started = now();
  const response = await client.complete(body, { signal });
  const durationMs = now() - started;

  const choice = response.choices?.[0];
  const finishReason = choice?.finish_reason ?? null;
  const usage = tokenUsage(response);
  const details: VisionDetails = {
    model: config.model,
    thinking,
    ...(p.detail !== undefined ? { detail: p.detail } : {}),
    images: images.map((i) => i.meta),
    durationMs,
    finishReason,
    usage,
  };
  if (!choice) throw new VisionError("response", "The vision endpoint answered without any choices.");

  const text = contentText(choice.message?.content).trim();
  if (text !== "") return { content: [{ type: "text", text }], details, usage: agentUsage(usage) };

  if (finishReason === "length") {
    const reasoning = thinking
      ? ` With thinking on, reasoning tokens count toward it (${usage.reasoningTokens} were used); raise VISION_MAX_TOKENS or call vision with thinking: false.`
      : " Raise VISION_MAX_TOKENS or ask for a shorter answer.";
    throw new VisionError("response", `The vision model stopped at the token limit (VISION_MAX_TOKENS = ${config.maxTokens}) before writing an answer.${reasoning}`);
  }
  const why = finishReason ? ` (finish_reason: ${finishReason})` : "";
  const advice = thinking ? "Retry the call, or ask a more specific question." : "Retry the call with thinking: true.";
  throw new VisionError("response", `The vision model returned an empty answer${why}. ${advice}`);
}

/** Validates against the schema; reports every problem with its path. */
function checkParams(params: unknown): VisionParams {
  if (Value.Check(visionParameters, params)) return params;
  const problems = [...Value.Errors(visionParameters, params)]
    .filter((e) => e.keyword !== "const") // a union's per-literal mismatches repeat the anyOf message
    .map((e) => `${e.instancePath || "/"} ${e.message}`);
  throw new VisionError("params", `Invalid vision parameters: ${[...new Set(problems)].join("; ")}. Expected { prompt: string, images: string[] (at least one), detail?: "low" | "high" | "original" | "auto", thinking?: boolean }.`);
}

/** Chat Completions content: a string, or (some endpoints) an array of text parts. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((part) => (part && typeof part === "object" && typeof (part as { text?: unknown }).text === "string" ? (part as { text: string }).text : "")).join("");
  return "";
}

function tokenUsage(response: ChatCompletionResponse): VisionTokenUsage {
  const u = response.usage ?? {};
  const n = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v >= 0 ? v : 0);
  const promptTokens = n(u.prompt_tokens);
  const completionTokens = n(u.completion_tokens);
  return {
    promptTokens,
    completionTokens,
    reasoningTokens: n(u.completion_tokens_details?.reasoning_tokens),
    totalTokens: u.total_tokens !== undefined ? n(u.total_tokens) : promptTokens + completionTokens,
  };
}

function agentUsage(u: VisionTokenUsage): AgentUsage {
  return {
    input: u.promptTokens,
    output: u.completionTokens,
    cacheRead: 0,
    cacheWrite: 0,
    reasoning: u.reasoningTokens,
    totalTokens: u.totalTokens,
    cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
  };
}

function defaultCwd(): string | undefined {
  const proc = (globalThis as { process?: { cwd?: () => string } }).process;
  return typeof proc?.cwd === "function" ? proc.cwd() : undefined;
}

/**
 * The `vision` tool as a pi `ToolDefinition` (see the module comment). `execute` uses `ctx.cwd` for relative
 * paths (else `options.cwd`, else `process.cwd()`), the `signal` pi passes, and ignores `onUpdate`.
 * @throws from `execute`: VisionError only, as {@link runVision}.
 */
export function createVisionTool(config: VisionConfig, options: VisionToolOptions = {}): VisionToolDefinition {
  return {
    ...visionToolText,
    promptGuidelines: [...visionToolText.promptGuidelines],
    parameters: visionParameters,
    execute(_toolCallId, params, signal, _onUpdate, ctx) {
      return runVision(params, config, { ...options, cwd: ctx?.cwd ?? options.cwd, signal });
    },
  };
}
