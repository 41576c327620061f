/**
 * pixfit/vision without a network: config loader, request builder, image loader, and the tool's logic against
 * fake clients.
 */
import { test, describe, before, after } from "node:test";
import assert from "node:assert/strict";
import { codecByMediaType } from "../codecs/index.js";
import { defineTarget, targets } from "../src/targets.js";
import {
  VisionError,
  buildRequestBody,
  createVisionTool,
  loadAndValidateImages,
  loadVisionConfig,
  registerVisionTool,
  runVision,
  visionParameters,
  type ChatCompletionRequest,
  type ChatCompletionResponse,
  type LoadedImage,
  type VisionClient,
  type VisionToolDefinition,
} from "../src/vision/index.js";
import { encode, makeRaster, rejectsWith, tempDir, testConfig } from "./vision-fixtures.js";

describe("loadVisionConfig", () => {
  test("defaults: DeepSeek base URL, thinking off, endpoint /chat/completions", () => {
    const c = loadVisionConfig({ VISION_API_KEY: "k-123456" });
    assert.deepEqual(c, {
      apiKey: "k-123456",
      baseUrl: "https://api.deepseek.com",
      endpoint: "https://api.deepseek.com/chat/completions",
      model: "deepseek-v4-flash",
      maxTokens: 8192,
      timeoutMs: 120000,
      thinking: false,
      thinkingFormat: "deepseek",
    });
  });

  test("reads every variable; trims; trailing slashes dropped; a full /chat/completions URL is kept", () => {
    const c = loadVisionConfig({
      VISION_API_KEY: " key-abcdef ",
      VISION_BASE_URL: "http://localhost:8080/v1/",
      VISION_MODEL: "gpt-vision",
      VISION_MAX_TOKENS: "300",
      VISION_TIMEOUT_MS: "2500",
      VISION_THINKING: "YES",
      VISION_THINKING_FORMAT: "None",
    });
    assert.deepEqual(c, {
      apiKey: "key-abcdef",
      baseUrl: "http://localhost:8080/v1",
      endpoint: "http://localhost:8080/v1/chat/completions",
      model: "gpt-vision",
      maxTokens: 300,
      timeoutMs: 2500,
      thinking: true,
      thinkingFormat: "none",
    });
    const full = loadVisionConfig({ VISION_API_KEY: "k-123456", VISION_BASE_URL: "https://x.example/api/chat/completions" });
    assert.equal(full.endpoint, "https://x.example/api/chat/completions");
    for (const [v, want] of [["0", false], ["off", false], ["No", false], ["1", true], ["on", true], ["true", true], ["", false]] as const)
      assert.equal(loadVisionConfig({ VISION_API_KEY: "k-123456", VISION_THINKING: v }).thinking, want, v);
  });

  test("missing or blank key is a config error naming VISION_API_KEY", () => {
    for (const env of [{}, { VISION_API_KEY: "   " }]) {
      assert.throws(() => loadVisionConfig(env), (e: VisionError) => e.category === "config" && /VISION_API_KEY/.test(e.message));
    }
  });

  test("values that do not parse are config errors naming the variable", () => {
    const bad: Array<[string, string]> = [
      ["VISION_MAX_TOKENS", "12k"],
      ["VISION_MAX_TOKENS", "0"],
      ["VISION_MAX_TOKENS", "1.5"],
      ["VISION_MAX_TOKENS", "99999999"],
      ["VISION_TIMEOUT_MS", "-5"],
      ["VISION_TIMEOUT_MS", "fast"],
      ["VISION_THINKING", "maybe"],
      ["VISION_BASE_URL", "not a url"],
      ["VISION_BASE_URL", "ftp://example.com"],
      ["VISION_BASE_URL", "https://user:pw@example.com"],
      ["VISION_BASE_URL", "https://example.com/v1?x=1"],
      ["VISION_THINKING_FORMAT", "openai"],
    ];
    for (const [name, value] of bad) {
      assert.throws(
        () => loadVisionConfig({ VISION_API_KEY: "k-123456", [name]: value }),
        (e: VisionError) => e instanceof VisionError && e.category === "config" && e.message.includes(name),
        `${name}=${value}`,
      );
    }
  });
});

describe("buildRequestBody", () => {
  const images = [{ dataUrl: "data:image/png;base64,AAAA" }, { dataUrl: "data:image/jpeg;base64,BBBB" }];

  test("one user message: prompt text then one image_url part per image, detail, max_tokens, DeepSeek thinking", () => {
    const body = buildRequestBody({ prompt: "What is shown?", images, detail: "high", thinking: true }, { model: "m1", maxTokens: 77, thinkingFormat: "deepseek" });
    assert.deepEqual(body, {
      model: "m1",
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "What is shown?" },
            { type: "image_url", image_url: { url: "data:image/png;base64,AAAA", detail: "high" } },
            { type: "image_url", image_url: { url: "data:image/jpeg;base64,BBBB", detail: "high" } },
          ],
        },
      ],
      max_tokens: 77,
      stream: false,
      thinking: { type: "enabled" },
    });
  });

  test("no detail key without detail; thinking off is sent as disabled; format none sends no switch", () => {
    const off = buildRequestBody({ prompt: "p", images, thinking: false }, { model: "m", maxTokens: 5, thinkingFormat: "deepseek" });
    const part = off.messages[0].content[1] as { image_url: object };
    assert.equal("detail" in part.image_url, false);
    assert.deepEqual(off.thinking, { type: "disabled" });
    const none = buildRequestBody({ prompt: "p", images, thinking: true }, { model: "m", maxTokens: 5, thinkingFormat: "none" });
    assert.equal("thinking" in none, false);
  });
});

describe("loadAndValidateImages", () => {
  let tmp: Awaited<ReturnType<typeof tempDir>>;
  before(async () => {
    tmp = await tempDir();
  });
  after(() => tmp.cleanup());

  test("a PNG that fits is sent byte for byte; relative paths resolve against cwd", async () => {
    const png = await encode("image/png", makeRaster(4, 3));
    await tmp.write("small.png", png);
    const [img] = await loadAndValidateImages(["small.png"], tmp.dir);
    assert.equal(img.dataUrl, `data:image/png;base64,${Buffer.from(png).toString("base64")}`);
    assert.deepEqual(img.meta, { path: "small.png", mediaType: "image/png", width: 4, height: 3, byteLength: png.length });
  });

  test("BMP becomes PNG with the same pixels", async () => {
    const raster = makeRaster(5, 4);
    await tmp.write("pic.bmp", await encode("image/bmp", raster));
    const [img] = await loadAndValidateImages([`${tmp.dir}/pic.bmp`], "/nonexistent-cwd");
    assert.equal(img.meta.mediaType, "image/png");
    assert.match(img.dataUrl, /^data:image\/png;base64,/);
    const bytes = new Uint8Array(Buffer.from(img.dataUrl.split(",")[1], "base64"));
    assert.equal(img.meta.byteLength, bytes.length);
    const decoded = await codecByMediaType("image/png")!.decode!(bytes, { maxPixels: 100 });
    assert.deepEqual([decoded.width, decoded.height], [5, 4]);
    assert.deepEqual(decoded.data, raster.data);
  });

  test("a large image is scaled down to fit 2000 × 2000", async () => {
    await tmp.write("wide.png", await encode("image/png", makeRaster(2400, 300)));
    const [img] = await loadAndValidateImages(["wide.png"], tmp.dir);
    assert.deepEqual([img.meta.mediaType, img.meta.width, img.meta.height], ["image/png", 2000, 250]);
  });

  test("an image over the target's per-image byte limit is scaled down until it fits; one that cannot fit is refused", async () => {
    const noisy = await encode("image/png", makeRaster(700, 700, true));
    assert.ok(noisy.length > 1_200_000, `noise PNG should be large, is ${noisy.length}`);
    await tmp.write("noise.png", noisy);
    const limit = 1_000_000;
    const target = defineTarget(targets.openaiCompatible, { image: { maxBytes: limit } });
    const [img] = await loadAndValidateImages(["noise.png"], tmp.dir, { target });
    assert.equal(img.meta.mediaType, "image/png");
    assert.ok(img.meta.byteLength <= limit, `${img.meta.byteLength} <= ${limit}`);
    assert.ok(img.meta.width < 700, `${img.meta.width} × ${img.meta.height}`);
    assert.equal(img.meta.width, img.meta.height);
    const tiny = defineTarget(targets.openaiCompatible, { image: { maxBytes: 10 } });
    const e = await rejectsWith(loadAndValidateImages(["noise.png"], tmp.dir, { target: tiny }), "image");
    assert.match(e.message, /noise\.png/);
    assert.match(e.message, /INPUT_TOO_LARGE/);
  });

  test("more images than the target takes per request is an image error before any file is read", async () => {
    const e = await rejectsWith(loadAndValidateImages(Array.from({ length: 21 }, (_, i) => `missing-${i}.png`), tmp.dir), "image");
    assert.match(e.message, /21 images/);
    assert.match(e.message, /at most 20/);
  });

  test("missing files, directories, empty, oversized, unsupported and PDF files are image errors naming the path", async () => {
    await tmp.mkdir("a-dir");
    await tmp.write("notes.txt", "hello, this is text and not an image at all");
    await tmp.write("empty.png", new Uint8Array(0));
    await tmp.write("doc.pdf", "%PDF-1.4\n1 0 obj\n<<>>\nendobj\n%%EOF\n");
    await tmp.write("big.png", await encode("image/png", makeRaster(64, 64, true)));
    const cases: Array<[string, RegExp, object?]> = [
      ["missing.png", /missing\.png.*does not exist/],
      ["a-dir", /a-dir.*is a directory/],
      ["notes.txt", /notes\.txt.*UNSUPPORTED_FORMAT/],
      ["empty.png", /empty\.png.*empty/],
      ["doc.pdf", /doc\.pdf.*application\/pdf.*UNSUPPORTED_FORMAT/],
      ["big.png", /big\.png.*the limit is 100 bytes/, { maxInputBytes: 100 }],
    ];
    for (const [name, re, opts] of cases) {
      const e = await rejectsWith(loadAndValidateImages([name], tmp.dir, opts ?? {}), "image");
      assert.match(e.message, re, name);
      assert.equal(e.path, name);
    }
  });

  test("an aborted signal stops loading", async () => {
    const ctrl = new AbortController();
    ctrl.abort();
    await rejectsWith(loadAndValidateImages(["small.png"], tmp.dir, { signal: ctrl.signal }), "aborted");
  });
});

// ---------------------------------------------------------------------------------------------------------------
// The tool against fake clients.

interface FakeClient extends VisionClient {
  calls: ChatCompletionRequest[];
}

function fakeClient(answer: ChatCompletionResponse | ((body: ChatCompletionRequest, signal?: AbortSignal) => Promise<ChatCompletionResponse>)): FakeClient {
  const calls: ChatCompletionRequest[] = [];
  return {
    calls,
    async complete(body, options) {
      calls.push(body);
      return typeof answer === "function" ? answer(body, options?.signal) : answer;
    },
  };
}

const fakeImages = async (paths: readonly string[]): Promise<LoadedImage[]> =>
  paths.map((path, i) => ({ dataUrl: `data:image/png;base64,IMG${i}`, meta: { path, mediaType: "image/png", width: 10 + i, height: 20, byteLength: 100 + i } }));

const okAnswer: ChatCompletionResponse = {
  id: "chatcmpl-1",
  model: "vision-test-model",
  choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "  A red square on white.  ", reasoning_content: "SECRET-REASONING-TEXT" } }],
  usage: { prompt_tokens: 1200, completion_tokens: 80, total_tokens: 1280, completion_tokens_details: { reasoning_tokens: 30 } },
};

function clock(...times: number[]): () => number {
  return () => times.shift() ?? 0;
}

describe("vision tool", () => {
  test("metadata: name, label, description, guidelines that name the tool, TypeBox schema", () => {
    const tool = createVisionTool(testConfig());
    assert.equal(tool.name, "vision");
    assert.equal(tool.label, "Vision");
    assert.match(tool.description, /local image/);
    assert.match(tool.description, /vision model/);
    assert.match(tool.description, /text/);
    assert.match(tool.description, /cannot read images/);
    assert.ok(tool.promptSnippet.length > 10);
    assert.ok(tool.promptGuidelines.length >= 2);
    for (const g of tool.promptGuidelines) assert.match(g, /^Use vision /, g);
    assert.equal(tool.parameters, visionParameters);
    const schema = JSON.parse(JSON.stringify(tool.parameters));
    assert.equal(schema.type, "object");
    assert.deepEqual(schema.required, ["prompt", "images"]);
    assert.equal(schema.properties.prompt.type, "string");
    assert.equal(schema.properties.images.type, "array");
    assert.equal(schema.properties.images.minItems, 1);
    assert.equal(schema.properties.images.items.type, "string");
    assert.deepEqual(schema.properties.detail.anyOf.map((s: { const: string }) => s.const), ["low", "high", "original", "auto"]);
    assert.equal(schema.properties.thinking.type, "boolean");
  });

  test("success: text returned, body built from params and config, details and usage mapped", async () => {
    const client = fakeClient(okAnswer);
    const tool = createVisionTool(testConfig(), { client, loadImages: fakeImages, now: clock(1000, 1042) });
    const result = await tool.execute("call-1", { prompt: "What is it?", images: ["a.png", "@b.png"] }, undefined, undefined, { cwd: "/work" });
    assert.deepEqual(result.content, [{ type: "text", text: "A red square on white." }]);
    assert.deepEqual(result.details, {
      model: "vision-test-model",
      thinking: false,
      images: [
        { path: "a.png", mediaType: "image/png", width: 10, height: 20, byteLength: 100 },
        { path: "b.png", mediaType: "image/png", width: 11, height: 20, byteLength: 101 },
      ],
      durationMs: 42,
      finishReason: "stop",
      usage: { promptTokens: 1200, completionTokens: 80, reasoningTokens: 30, totalTokens: 1280 },
    });
    assert.deepEqual(result.usage, {
      input: 1200,
      output: 80,
      cacheRead: 0,
      cacheWrite: 0,
      reasoning: 30,
      totalTokens: 1280,
      cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
    });
    assert.equal(JSON.stringify(result).includes("SECRET-REASONING-TEXT"), false, "reasoning_content must not be returned");
    assert.equal(JSON.stringify(result.details).includes("base64"), false, "no image data in details");
    assert.deepEqual(client.calls, [
      {
        model: "vision-test-model",
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "What is it?" },
              { type: "image_url", image_url: { url: "data:image/png;base64,IMG0" } },
              { type: "image_url", image_url: { url: "data:image/png;base64,IMG1" } },
            ],
          },
        ],
        max_tokens: 1000,
        stream: false,
        thinking: { type: "disabled" },
      },
    ]);
  });

  test("ctx.cwd is where relative paths resolve; a leading @ is dropped", async () => {
    const seen: Array<[readonly string[], string]> = [];
    const tool = createVisionTool(testConfig(), {
      client: fakeClient(okAnswer),
      loadImages: async (paths, cwd) => {
        seen.push([paths, cwd]);
        return fakeImages(paths);
      },
    });
    await tool.execute("c", { prompt: "p", images: ["@shots/x.png", "y.png"] }, undefined, undefined, { cwd: "/proj" });
    assert.deepEqual(seen, [[["shots/x.png", "y.png"], "/proj"]]);
  });

  test("thinking: the parameter wins, else the config default; detail appears in details only when given", async () => {
    const cases: Array<[boolean, boolean | undefined, "enabled" | "disabled"]> = [
      [false, undefined, "disabled"],
      [false, true, "enabled"],
      [true, undefined, "enabled"],
      [true, false, "disabled"],
    ];
    for (const [configDefault, param, sent] of cases) {
      const client = fakeClient(okAnswer);
      const params = { prompt: "p", images: ["a.png"], ...(param === undefined ? {} : { thinking: param }) };
      const r = await runVision(params, testConfig({ thinking: configDefault }), { client, loadImages: fakeImages, cwd: "/" });
      assert.deepEqual(client.calls[0].thinking, { type: sent }, `config ${configDefault}, param ${param}`);
      assert.equal(r.details.thinking, sent === "enabled");
      assert.equal("detail" in r.details, false);
    }
    const client = fakeClient(okAnswer);
    const r = await runVision({ prompt: "p", images: ["a.png"], detail: "low" }, testConfig(), { client, loadImages: fakeImages, cwd: "/" });
    assert.equal(r.details.detail, "low");
    assert.equal((client.calls[0].messages[0].content[1] as { image_url: { detail?: string } }).image_url.detail, "low");
  });

  test("content given as an array of text parts is joined", async () => {
    const client = fakeClient({ choices: [{ finish_reason: "stop", message: { content: [{ type: "text", text: "Two " }, { type: "text", text: "cats." }] } }] });
    const r = await runVision({ prompt: "p", images: ["a.png"] }, testConfig(), { client, loadImages: fakeImages, cwd: "/" });
    assert.equal(r.content[0].text, "Two cats.");
    assert.deepEqual(r.details.usage, { promptTokens: 0, completionTokens: 0, reasoningTokens: 0, totalTokens: 0 });
  });

  test("invalid parameters are params errors; neither loader nor client is called", async () => {
    const bad: unknown[] = [
      { prompt: "p", images: [] },
      { prompt: "p" },
      { images: ["a.png"] },
      { prompt: "", images: ["a.png"] },
      { prompt: "p", images: ["a.png"], detail: "medium" },
      { prompt: "p", images: ["a.png"], thinking: "yes" },
      { prompt: "p", images: [3] },
      null,
    ];
    for (const params of bad) {
      const client = fakeClient(okAnswer);
      let loaded = false;
      const e = await rejectsWith(
        runVision(params, testConfig(), { client, loadImages: async (p) => ((loaded = true), fakeImages(p)), cwd: "/" }),
        "params",
      );
      assert.match(e.message, /Invalid vision parameters/);
      assert.equal(client.calls.length, 0, JSON.stringify(params));
      assert.equal(loaded, false);
    }
  });

  test("an image that fails validation is an image error and the client is never called", async () => {
    const tmp = await tempDir();
    try {
      await tmp.write("ok.png", await encode("image/png", makeRaster(2, 2)));
      const client = fakeClient(okAnswer);
      const e = await rejectsWith(runVision({ prompt: "p", images: ["ok.png", "nope.png"] }, testConfig(), { client, cwd: tmp.dir }), "image");
      assert.match(e.message, /nope\.png/);
      assert.equal(e.path, "nope.png");
      assert.equal(client.calls.length, 0);
    } finally {
      await tmp.cleanup();
    }
  });

  test("empty content with finish_reason length names VISION_MAX_TOKENS; with thinking, says reasoning tokens count", async () => {
    const answer: ChatCompletionResponse = {
      choices: [{ finish_reason: "length", message: { content: "", reasoning_content: "thought a lot" } }],
      usage: { prompt_tokens: 10, completion_tokens: 1000, total_tokens: 1010, completion_tokens_details: { reasoning_tokens: 1000 } },
    };
    const withThinking = await rejectsWith(
      runVision({ prompt: "p", images: ["a.png"], thinking: true }, testConfig(), { client: fakeClient(answer), loadImages: fakeImages, cwd: "/" }),
      "response",
    );
    assert.match(withThinking.message, /VISION_MAX_TOKENS = 1000/);
    assert.match(withThinking.message, /reasoning tokens count toward it/);
    assert.equal(withThinking.message.includes("thought a lot"), false);
    const without = await rejectsWith(
      runVision({ prompt: "p", images: ["a.png"] }, testConfig(), { client: fakeClient(answer), loadImages: fakeImages, cwd: "/" }),
      "response",
    );
    assert.match(without.message, /VISION_MAX_TOKENS/);
    assert.equal(/reasoning tokens/.test(without.message), false);
  });

  test("other empty content is a response error suggesting thinking: true", async () => {
    for (const choice of [
      { finish_reason: "stop", message: { content: "   " } },
      { finish_reason: "content_filter", message: { content: null } },
      { finish_reason: null, message: null },
    ]) {
      const e = await rejectsWith(
        runVision({ prompt: "p", images: ["a.png"] }, testConfig(), { client: fakeClient({ choices: [choice] }), loadImages: fakeImages, cwd: "/" }),
        "response",
      );
      assert.match(e.message, /empty answer/);
      assert.match(e.message, /thinking: true/);
      if (choice.finish_reason) assert.match(e.message, new RegExp(`finish_reason: ${choice.finish_reason}`));
    }
    const none = await rejectsWith(
      runVision({ prompt: "p", images: ["a.png"] }, testConfig(), { client: fakeClient({ choices: [] }), loadImages: fakeImages, cwd: "/" }),
      "response",
    );
    assert.match(none.message, /without any choices/);
  });

  test("errors from the client keep their category; anything else is unexpected, one line, key redacted", async () => {
    const config = testConfig();
    const httpError = fakeClient(async () => {
      throw new VisionError("http", "The vision endpoint answered HTTP 503: overloaded.", { status: 503 });
    });
    const e1 = await rejectsWith(runVision({ prompt: "p", images: ["a.png"] }, config, { client: httpError, loadImages: fakeImages, cwd: "/" }), "http");
    assert.equal(e1.status, 503);

    const boom = fakeClient(async () => {
      throw new TypeError(`boom with ${config.apiKey}\n    at secretFrame (file.js:1:1)`);
    });
    const e2 = await rejectsWith(runVision({ prompt: "p", images: ["a.png"] }, config, { client: boom, loadImages: fakeImages, cwd: "/" }), "unexpected");
    assert.match(e2.message, /TypeError/);
    assert.match(e2.message, /boom/);
    assert.equal(e2.message.includes("\n"), false);
    assert.equal(e2.message.includes("secretFrame"), false);
    assert.equal(e2.message.includes(config.apiKey), false);
    assert.ok(e2.cause instanceof TypeError);

    const loaderBug = await rejectsWith(
      runVision({ prompt: "p", images: ["a.png"] }, config, { client: fakeClient(okAnswer), loadImages: async () => { throw new RangeError("bad"); }, cwd: "/" }),
      "unexpected",
    );
    assert.match(loaderBug.message, /RangeError: ?|RangeError\)/);
  });

  test("abort: before start the client is never called; during the call it becomes aborted", async () => {
    const pre = new AbortController();
    pre.abort();
    const client = fakeClient(okAnswer);
    let loaded = false;
    const tool: VisionToolDefinition = createVisionTool(testConfig(), { client, loadImages: async (p) => ((loaded = true), fakeImages(p)) });
    await rejectsWith(tool.execute("c", { prompt: "p", images: ["a.png"] }, pre.signal, undefined, { cwd: "/" }), "aborted");
    assert.equal(client.calls.length, 0);
    assert.equal(loaded, false);

    const during = new AbortController();
    const hanging = fakeClient(
      (_body, signal) =>
        new Promise((_resolve, reject) => {
          signal?.addEventListener("abort", () => reject(new DOMException("The operation was aborted.", "AbortError")));
        }),
    );
    const running = runVision({ prompt: "p", images: ["a.png"] }, testConfig(), { client: hanging, loadImages: fakeImages, cwd: "/", signal: during.signal });
    await new Promise((r) => setTimeout(r, 10));
    during.abort();
    await rejectsWith(running, "aborted");
    assert.equal(hanging.calls.length, 1);
  });
});

describe("registerVisionTool", () => {
  test("without an API key nothing is registered and it says so once", () => {
    const registered: unknown[] = [];
    const warnings: string[] = [];
    const tool = registerVisionTool({ registerTool: (t) => registered.push(t) }, { env: {}, warn: (m) => warnings.push(m) });
    assert.equal(tool, undefined);
    assert.equal(registered.length, 0);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /VISION_API_KEY/);
  });

  test("a value that does not parse is reported once, naming the variable; nothing registered", () => {
    const registered: unknown[] = [];
    const warnings: string[] = [];
    registerVisionTool({ registerTool: (t) => registered.push(t) }, { env: { VISION_API_KEY: "k-123456", VISION_TIMEOUT_MS: "soon" }, warn: (m) => warnings.push(m) });
    assert.equal(registered.length, 0);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /VISION_TIMEOUT_MS/);
    assert.equal(warnings[0].includes("k-123456"), false);
  });

  test("with a key the vision tool is registered once, without warnings", () => {
    const registered: VisionToolDefinition[] = [];
    const warnings: string[] = [];
    const tool = registerVisionTool({ registerTool: (t) => registered.push(t) }, { env: { VISION_API_KEY: "k-123456" }, warn: (m) => warnings.push(m) });
    assert.equal(registered.length, 1);
    assert.equal(registered[0], tool);
    assert.equal(registered[0].name, "vision");
    assert.deepEqual(warnings, []);
  });
});
