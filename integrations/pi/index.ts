/**
 * policy-engine for pi: every tool call the agent makes is judged by `policy hook --agent pi`
 * before it runs (allow / nudge / log / ask / deny).
 *
 * The engine is a separate executable: $POLICY_ENGINE_BIN, else `policy` on PATH. Anything other
 * than a clean answer from it (it is missing, crashes, exits non-zero, hangs for 10 s, prints
 * something that is not an answer) blocks the call: the gate fails closed.
 *
 * Written in erasable TypeScript only (no enums, namespaces, parameter properties or decorators),
 * so that pi's loader, node's type stripping, or any type eraser can run it as it is. The types of
 * pi's API are declared here, structurally, for what this file uses, so that it imports nothing
 * but node built-ins.
 */

import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";

// ---------------------------------------------------------------------------------------------
// pi's extension API, as far as it is used here

type NotifyType = "info" | "warning" | "error";

interface PiUI {
  select(title: string, options: string[]): Promise<string | undefined>;
  notify(message: string, type?: NotifyType): void;
}

interface PiContext {
  cwd: string;
  hasUI: boolean;
  ui: PiUI;
  sessionManager?: { getSessionId?: () => string | undefined };
}

type Content = { type: string; text?: string; [key: string]: unknown };

interface ToolCallEvent {
  toolName: string;
  toolCallId: string;
  input: Record<string, unknown>;
}

interface ToolResultEvent {
  toolName?: string;
  toolCallId: string;
  content?: Content[];
}

type ToolCallResult = { block: true; reason: string } | undefined;
type ToolResultResult = { content: Content[] } | undefined;

interface PiAPI {
  on(event: "tool_call", handler: (event: ToolCallEvent, ctx: PiContext) => Promise<ToolCallResult>): void;
  on(event: "tool_result", handler: (event: ToolResultEvent, ctx: PiContext) => Promise<ToolResultResult>): void;
}

// ---------------------------------------------------------------------------------------------
// Running the engine

/** What became of one run of an executable. */
export interface RunResult {
  /** The exit status; null when the process was killed by a signal or never started. */
  code: number | null;
  signal?: string | null;
  stdout: string;
  stderr: string;
  /** Set when the executable could not be started at all (e.g. "spawn policy ENOENT"). */
  error?: string;
  /** Set when the process was killed for taking longer than the time allowed. */
  timedOut?: boolean;
}

/** Runs `file` with `args` (no shell), writes `stdin` to it, and reports what happened. */
export type RunCommand = (file: string, args: string[], stdin: string, timeoutMs: number) => Promise<RunResult>;

export interface Options {
  /** How to run the engine; the default spawns the real executable. Tests put a fake here. */
  runCommand?: RunCommand;
  /** The engine executable; default: $POLICY_ENGINE_BIN (read at each call), else "policy". */
  bin?: string;
  /** How long the engine may take to answer; default 10 000 ms. */
  timeoutMs?: number;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_OUTPUT_BYTES = 1024 * 1024;
const MAX_PENDING_NUDGES = 1000;

export const CHOICES = [
  "Allow once",
  "Allow for this session",
  "Allow for this project",
  "Allow globally",
  "Deny",
];

type Action = "allow" | "nudge" | "log" | "ask" | "deny";
const ACTIONS: string[] = ["allow", "nudge", "log", "ask", "deny"];

interface Answer {
  action: Action;
  reason: string;
  message: string | null;
  /** For an allow that holds only in a sandbox: the confined command to run instead. */
  command: string | null;
}

type Verdict = { ok: true; answer: Answer } | { ok: false; failure: string };

/** The default RunCommand: child_process.spawn with an argument array, never a shell. */
export function spawnCommand(file: string, args: string[], stdin: string, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    let settled = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    const text = (chunks: Buffer[]) => Buffer.concat(chunks).toString("utf8");
    const settle = (result: Partial<RunResult>) => {
      if (settled) return;
      settled = true;
      if (timer !== undefined) clearTimeout(timer);
      resolve({ code: null, stdout: text(stdout), stderr: text(stderr), ...result });
    };

    let child: ReturnType<typeof spawn>;
    try {
      child = spawn(file, args, { stdio: ["pipe", "pipe", "pipe"], windowsHide: true });
    } catch (err) {
      settle({ error: errorText(err) });
      return;
    }
    timer = setTimeout(() => {
      // Answer now: a grandchild holding the pipes open must not keep the agent waiting.
      settle({ timedOut: true });
      child.kill("SIGKILL");
      child.stdout?.destroy();
      child.stderr?.destroy();
    }, timeoutMs);

    child.stdout?.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes <= MAX_OUTPUT_BYTES) stdout.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      errBytes += chunk.length;
      if (errBytes <= MAX_OUTPUT_BYTES) stderr.push(chunk);
    });
    child.on("error", (err: Error) => settle({ error: errorText(err) }));
    child.on("close", (code: number | null, signal: string | null) => settle({ code, signal }));
    // An engine that exits without reading its input must not crash us with EPIPE.
    child.stdin?.on("error", () => {});
    child.stdin?.end(stdin);
  });
}

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** At most `limit` characters of the trimmed text, to quote in a reason or a notification. */
function excerpt(text: string, limit: number = 2000): string {
  const trimmed = text.trim();
  return trimmed.length > limit ? `${trimmed.slice(0, limit)}…` : trimmed;
}

/** Why a run did not succeed, in words; undefined when it exited 0. */
function runFailure(bin: string, result: RunResult, timeoutMs: number): string | undefined {
  if (result.error !== undefined) return `could not run ${bin}: ${result.error}`;
  if (result.timedOut) return `${bin} did not answer within ${timeoutMs / 1000} s`;
  if (result.code === 0) return undefined;
  const how = result.code === null ? `was killed by ${result.signal ?? "a signal"}` : `exited with status ${result.code}`;
  const said = excerpt(result.stderr) || excerpt(result.stdout);
  return said ? `${bin} ${how}: ${said}` : `${bin} ${how} and printed nothing`;
}

/** The engine's answer in stdout, or a description of what is wrong with it. */
export function parseAnswer(stdout: string): Answer | string {
  let value: unknown;
  try {
    value = JSON.parse(stdout);
  } catch {
    return `its output is not JSON: ${excerpt(stdout, 500) || "(nothing)"}`;
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return `its output is not a JSON object: ${excerpt(stdout, 500)}`;
  }
  const fields = value as Record<string, unknown>;
  if (typeof fields.action !== "string" || !ACTIONS.includes(fields.action)) {
    return `its answer has no valid action: ${excerpt(stdout, 500)}`;
  }
  return {
    action: fields.action as Action,
    reason: typeof fields.reason === "string" ? fields.reason : "",
    message: typeof fields.message === "string" ? fields.message : null,
    command: typeof fields.command === "string" ? fields.command : null,
  };
}

// ---------------------------------------------------------------------------------------------
// The extension

/** The extension, with its engine runner replaceable (for tests). */
export function createExtension(options: Options = {}): (pi: PiAPI) => void {
  const runCommand = options.runCommand ?? spawnCommand;
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const engineBin = () => options.bin ?? (process.env.POLICY_ENGINE_BIN || "policy");
  // Used when pi does not tell the session id: one per loaded extension, so per pi process.
  const fallbackSessionId = `pi-${randomUUID()}`;

  const sessionIdOf = (ctx: PiContext): string => {
    try {
      const id = ctx.sessionManager?.getSessionId?.();
      if (typeof id === "string" && id !== "") return id;
    } catch {
      // fall through to our own id
    }
    return fallbackSessionId;
  };

  const askEngine = async (request: Record<string, unknown>): Promise<Verdict> => {
    const bin = engineBin();
    const result = await runCommand(bin, ["hook", "--agent", "pi"], `${JSON.stringify(request)}\n`, timeoutMs);
    const failure = runFailure(bin, result, timeoutMs);
    if (failure !== undefined) return { ok: false, failure };
    const answer = parseAnswer(result.stdout);
    if (typeof answer === "string") return { ok: false, failure: `${bin} gave no usable answer: ${answer}` };
    return { ok: true, answer };
  };

  /** `policy approve` for this call in a scope; undefined when it worked, else why not. */
  const approve = async (scope: string[], tool: string, input: Record<string, unknown>, ctx: PiContext): Promise<string | undefined> => {
    const bin = engineBin();
    const args = ["approve", ...scope, "--cwd", ctx.cwd, "--tool", tool];
    if (tool === "bash" && typeof input.command === "string") {
      args.push("--", input.command); // "--": a command may start with "-"
    } else {
      args.push("--input", JSON.stringify(input));
    }
    const result = await runCommand(bin, args, "", timeoutMs);
    return runFailure(bin, result, timeoutMs);
  };

  const askPerson = async (tool: string, input: Record<string, unknown>, reason: string, ctx: PiContext): Promise<ToolCallResult> => {
    if (!ctx.hasUI) return { block: true, reason: `${reason} (no one to ask: blocked)` };
    const choice = await ctx.ui.select(`[policy-engine] Allow ${tool}?\n\n${reason}`, CHOICES);
    if (choice === undefined || choice === "Deny" || !CHOICES.includes(choice)) {
      return { block: true, reason: `[policy-engine] Blocked by user: ${tool}` };
    }
    if (choice === "Allow once") return undefined;
    if (choice === "Allow for this session") {
      const failure = await approve(["--session", sessionIdOf(ctx)], tool, input, ctx);
      if (failure !== undefined) {
        notify(ctx, `[policy-engine] Could not remember "allow for this session" (${failure}); this call runs, later ones will be asked again.`, "warning");
      }
      return undefined;
    }
    const scope = choice === "Allow for this project" ? "--project" : "--user";
    const where = choice === "Allow for this project" ? "this project" : "all projects";
    const failure = await approve([scope], tool, input, ctx);
    if (failure === undefined) notify(ctx, `[policy-engine] Approved ${tool} for ${where}.`, "info");
    else notify(ctx, `[policy-engine] Could not save the approval for ${where}: ${failure}. This call runs.`, "error");
    return undefined;
  };

  return function register(pi: PiAPI): void {
    const pendingNudges = new Map<string, string>();

    pi.on("tool_call", async (event: ToolCallEvent, ctx: PiContext): Promise<ToolCallResult> => {
      const tool = event.toolName;
      try {
        const input = event.input ?? {};
        const verdict = await askEngine({
          tool,
          input,
          cwd: ctx.cwd,
          session_id: sessionIdOf(ctx),
          tool_call_id: event.toolCallId,
        });
        if (!verdict.ok) {
          return { block: true, reason: `[policy-engine] The policy engine failed, so ${tool} is blocked: ${verdict.failure}` };
        }
        const { action, reason, message, command } = verdict.answer;
        if (command !== null) {
          // It may run only confined: pi runs the input object its handlers were given, so the
          // command is changed in place (a new object would be ignored). Anything else: blocked.
          const runs = action === "allow" || action === "log" || action === "nudge";
          if (!runs || tool !== "bash" || typeof event.input !== "object" || event.input === null) {
            return { block: true, reason: `[policy-engine] The policy engine answered a confined command pi cannot run here, so ${tool} is blocked` };
          }
          event.input.command = command;
        }
        switch (action) {
          case "allow":
          case "log":
            return undefined;
          case "nudge": {
            const text = message || reason;
            if (text) {
              if (pendingNudges.size >= MAX_PENDING_NUDGES) {
                // results that never came (another extension blocked the call): forget the oldest
                pendingNudges.delete(pendingNudges.keys().next().value as string);
              }
              pendingNudges.set(event.toolCallId, text);
            }
            return undefined;
          }
          case "deny":
            return { block: true, reason: reason || `[policy-engine] Denied by policy: ${tool}` };
          case "ask":
            return await askPerson(tool, input, reason || `policy asks before ${tool}`, ctx);
        }
      } catch (err) {
        return { block: true, reason: `[policy-engine] The policy engine failed, so ${tool} is blocked: ${errorText(err)}` };
      }
    });

    pi.on("tool_result", async (event: ToolResultEvent): Promise<ToolResultResult> => {
      const message = pendingNudges.get(event.toolCallId);
      if (message === undefined) return undefined;
      pendingNudges.delete(event.toolCallId);
      return { content: [{ type: "text", text: `[policy-engine nudge] ${message}\n\n` }, ...(event.content ?? [])] };
    });
  };
}

function notify(ctx: PiContext, message: string, type: NotifyType): void {
  try {
    ctx.ui.notify(message, type);
  } catch {
    // a notification is a courtesy; never let it change the decision
  }
}

/** pi's entry point. */
export default function policyEngine(pi: PiAPI): void {
  createExtension()(pi);
}
