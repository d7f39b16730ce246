// The pi extension against a fake pi (it records the handlers) and a fake engine: first a fake
// RunCommand, then a real executable script that the extension spawns.

import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import { register } from "node:module";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

// A node without type stripping imports the .ts through our loader (see tools/ts-loader.mjs).
if (!process.features.typescript) register("../tools/ts-loader.mjs", import.meta.url);
const { default: policyEngine, createExtension, CHOICES } = await import("../index.ts");

const CWD = "/home/me/p";

/** A fake pi: records what the extension registers and calls it like pi does. */
function fakePi(extension) {
  const handlers = new Map();
  const pi = {
    on(event, handler) {
      handlers.set(event, [...(handlers.get(event) ?? []), handler]);
    },
  };
  extension(pi);
  const emit = async (event, payload, ctx) => {
    const list = handlers.get(event) ?? [];
    assert.equal(list.length, 1, `one ${event} handler`);
    return list[0](payload, ctx);
  };
  return {
    handlers,
    toolCall: (payload, ctx) => emit("tool_call", { type: "tool_call", ...payload }, ctx),
    toolResult: (payload, ctx) => emit("tool_result", { type: "tool_result", isError: false, ...payload }, ctx),
  };
}

/** A fake ctx: ui.select answers from a script, notify records. */
function fakeCtx({ hasUI = true, answers = [], sessionId, cwd = CWD } = {}) {
  const ctx = {
    cwd,
    hasUI,
    selects: [],
    notes: [],
    ui: {
      async select(title, options) {
        ctx.selects.push({ title, options });
        const next = answers.shift();
        if (next instanceof Error) throw next;
        return next;
      },
      notify(message, type) {
        ctx.notes.push({ message, type });
      },
    },
  };
  if (sessionId !== undefined) ctx.sessionManager = { getSessionId: () => sessionId };
  return ctx;
}

const answer = (action, reason = "because", message = null) => ({
  code: 0,
  stdout: JSON.stringify({ action, reason, message }),
});

/**
 * A fake engine: `hook` replies with `hookReply` (a RunResult, a function of the call, or an
 * error to throw), `approve` with `approveReply`. Every call is recorded.
 */
function fakeEngine(hookReply, approveReply = { code: 0, stdout: "approved\n" }) {
  const calls = [];
  const runCommand = async (file, args, stdin, timeoutMs) => {
    const call = { file, args, stdin, timeoutMs };
    calls.push(call);
    let reply = args[0] === "hook" ? hookReply : approveReply;
    if (typeof reply === "function") reply = reply(call);
    if (reply instanceof Error) throw reply;
    return { code: 0, signal: null, stdout: "", stderr: "", ...reply };
  };
  return { calls, runCommand, hooks: () => calls.filter((c) => c.args[0] === "hook"), approvals: () => calls.filter((c) => c.args[0] === "approve") };
}

function setup(hookReply, approveReply, options = {}) {
  const engine = fakeEngine(hookReply, approveReply);
  const pi = fakePi(createExtension({ bin: "/opt/pe/bin/policy", runCommand: engine.runCommand, ...options }));
  return { engine, pi };
}

const BASH = { toolName: "bash", toolCallId: "t1", input: { command: "rm -rf build" } };

describe("registration", () => {
  test("the default export registers one tool_call and one tool_result handler", () => {
    const pi = fakePi(policyEngine);
    assert.deepEqual([...pi.handlers.keys()].sort(), ["tool_call", "tool_result"]);
  });
});

describe("the request to the engine", () => {
  test("spawns `<bin> hook --agent pi` with one JSON object on stdin", async () => {
    const { engine, pi } = setup(answer("allow"));
    await pi.toolCall(BASH, fakeCtx({ sessionId: "abc" }));
    assert.equal(engine.calls.length, 1);
    const [call] = engine.calls;
    assert.equal(call.file, "/opt/pe/bin/policy");
    assert.deepEqual(call.args, ["hook", "--agent", "pi"]);
    assert.equal(call.timeoutMs, 10_000);
    assert.deepEqual(JSON.parse(call.stdin), {
      tool: "bash",
      input: { command: "rm -rf build" },
      cwd: CWD,
      session_id: "abc",
      tool_call_id: "t1",
    });
  });

  test("the executable is $POLICY_ENGINE_BIN, else `policy` on PATH", async () => {
    const saved = process.env.POLICY_ENGINE_BIN;
    try {
      const engine = fakeEngine(answer("allow"));
      const pi = fakePi(createExtension({ runCommand: engine.runCommand }));
      process.env.POLICY_ENGINE_BIN = "/usr/local/bin/policy";
      await pi.toolCall(BASH, fakeCtx());
      delete process.env.POLICY_ENGINE_BIN;
      await pi.toolCall(BASH, fakeCtx());
      assert.deepEqual(engine.calls.map((c) => c.file), ["/usr/local/bin/policy", "policy"]);
    } finally {
      if (saved === undefined) delete process.env.POLICY_ENGINE_BIN;
      else process.env.POLICY_ENGINE_BIN = saved;
    }
  });

  test("without a session id from pi, one random id is used for every call", async () => {
    const { engine, pi } = setup(answer("allow"));
    await pi.toolCall(BASH, fakeCtx());
    await pi.toolCall({ ...BASH, toolCallId: "t2" }, fakeCtx());
    const [first, second] = engine.calls.map((c) => JSON.parse(c.stdin).session_id);
    assert.match(first, /^pi-[0-9a-f-]{36}$/);
    assert.equal(second, first);
  });

  test("a session manager that throws or has no id falls back to the random id", async () => {
    const { engine, pi } = setup(answer("allow"));
    const throwing = fakeCtx();
    throwing.sessionManager = { getSessionId: () => { throw new Error("not ready"); } };
    await pi.toolCall(BASH, throwing);
    await pi.toolCall(BASH, fakeCtx({ sessionId: "" }));
    const ids = engine.calls.map((c) => JSON.parse(c.stdin).session_id);
    assert.match(ids[0], /^pi-/);
    assert.equal(ids[1], ids[0]);
  });
});

describe("actions", () => {
  for (const action of ["allow", "log"]) {
    test(`${action}: the tool runs`, async () => {
      const { pi } = setup(answer(action, "fine", "a message"));
      const ctx = fakeCtx();
      assert.equal(await pi.toolCall(BASH, ctx), undefined);
      assert.equal(ctx.selects.length, 0);
      // nothing is added to the result
      assert.equal(await pi.toolResult({ toolName: "bash", toolCallId: "t1", content: [] }, ctx), undefined);
    });
  }

  test("allow with a confined command: the tool's own input gets it, and the tool runs", async () => {
    const { pi } = setup({ code: 0, stdout: JSON.stringify({ action: "allow", reason: "sandboxed", message: null, command: "bwrap -- bash -c 'make test'" }) });
    const input = { command: "make test", timeout: 60 };
    const call = { toolName: "bash", toolCallId: "t1", input };
    assert.equal(await pi.toolCall(call, fakeCtx()), undefined);
    assert.equal(call.input, input, "the same object, changed in place");
    assert.deepEqual(input, { command: "bwrap -- bash -c 'make test'", timeout: 60 });
  });

  test("nudge with a confined command: the command is changed and the nudge still reaches the result", async () => {
    const { pi } = setup({ code: 0, stdout: JSON.stringify({ action: "nudge", reason: "r", message: "mind the tests", command: "bwrap x" }) });
    const input = { command: "make test" };
    const ctx = fakeCtx();
    assert.equal(await pi.toolCall({ toolName: "bash", toolCallId: "t9", input }, ctx), undefined);
    assert.equal(input.command, "bwrap x");
    const result = await pi.toolResult({ toolName: "bash", toolCallId: "t9", content: [] }, ctx);
    assert.match(result.content[0].text, /mind the tests/);
  });

  test("a confined command with another action or tool: blocked, the input unchanged", async () => {
    for (const [action, toolName] of [["ask", "bash"], ["deny", "bash"], ["allow", "write"]]) {
      const { pi } = setup({ code: 0, stdout: JSON.stringify({ action, reason: "r", message: null, command: "bwrap x" }) });
      const input = { command: "make test" };
      const result = await pi.toolCall({ toolName, toolCallId: "t1", input }, fakeCtx({ hasUI: false }));
      assert.equal(result.block, true);
      assert.deepEqual(input, { command: "make test" });
    }
  });

  test("deny: blocked with the engine's reason", async () => {
    const { pi } = setup(answer("deny", "rm -rf is denied in ~/p (policy work)"));
    assert.deepEqual(await pi.toolCall(BASH, fakeCtx()), { block: true, reason: "rm -rf is denied in ~/p (policy work)" });
  });

  test("deny without a reason still blocks, with a reason of its own", async () => {
    const { pi } = setup({ code: 0, stdout: '{"action": "deny"}' });
    assert.deepEqual(await pi.toolCall(BASH, fakeCtx()), { block: true, reason: "[policy-engine] Denied by policy: bash" });
  });

  test("nudge: the tool runs and its result gets the message in front, once", async () => {
    const { pi } = setup(answer("nudge", "rule nudge", "Prefer `trash` over rm -rf."));
    const ctx = fakeCtx();
    assert.equal(await pi.toolCall(BASH, ctx), undefined);
    const content = [{ type: "text", text: "removed 3 files" }];
    // another call's result is left alone
    assert.equal(await pi.toolResult({ toolName: "bash", toolCallId: "other", content }, ctx), undefined);
    const changed = await pi.toolResult({ toolName: "bash", toolCallId: "t1", content }, ctx);
    assert.deepEqual(changed, {
      content: [
        { type: "text", text: "[policy-engine nudge] Prefer `trash` over rm -rf.\n\n" },
        { type: "text", text: "removed 3 files" },
      ],
    });
    assert.deepEqual(content, [{ type: "text", text: "removed 3 files" }], "the event's array is not modified");
    assert.equal(await pi.toolResult({ toolName: "bash", toolCallId: "t1", content }, ctx), undefined, "only once");
  });

  test("nudge without a message uses the reason; a result without content still gets it", async () => {
    const { pi } = setup(answer("nudge", "reads outside the project", null));
    await pi.toolCall({ toolName: "read", toolCallId: "r1", input: { path: "/etc/hosts" } }, fakeCtx());
    assert.deepEqual(await pi.toolResult({ toolName: "read", toolCallId: "r1" }, fakeCtx()), {
      content: [{ type: "text", text: "[policy-engine nudge] reads outside the project\n\n" }],
    });
  });

  test("nudges are kept per extension instance", async () => {
    const engine = fakeEngine(answer("nudge", "r", "m"));
    const one = fakePi(createExtension({ bin: "p", runCommand: engine.runCommand }));
    const two = fakePi(createExtension({ bin: "p", runCommand: engine.runCommand }));
    await one.toolCall(BASH, fakeCtx());
    assert.equal(await two.toolResult({ toolCallId: "t1", content: [] }, fakeCtx()), undefined);
    assert.ok(await one.toolResult({ toolCallId: "t1", content: [] }, fakeCtx()));
  });
});

describe("ask", () => {
  const asked = (ctx) => ctx.selects.map((s) => s.title);

  test("with no UI: blocked, and no one is asked", async () => {
    const { engine, pi } = setup(answer("ask", "git push needs a person"));
    const ctx = fakeCtx({ hasUI: false });
    assert.deepEqual(await pi.toolCall(BASH, ctx), {
      block: true,
      reason: "git push needs a person (no one to ask: blocked)",
    });
    assert.equal(ctx.selects.length, 0);
    assert.equal(engine.approvals().length, 0);
  });

  test("the question names the tool and the reason and offers the five choices", async () => {
    const { pi } = setup(answer("ask", "rm -rf asks in ~/p"));
    const ctx = fakeCtx({ answers: ["Allow once"] });
    await pi.toolCall(BASH, ctx);
    assert.deepEqual(ctx.selects, [
      {
        title: "[policy-engine] Allow bash?\n\nrm -rf asks in ~/p",
        options: ["Allow once", "Allow for this session", "Allow for this project", "Allow globally", "Deny"],
      },
    ]);
    assert.deepEqual(CHOICES, ctx.selects[0].options);
  });

  test("Allow once: runs, and nothing is written", async () => {
    const { engine, pi } = setup(answer("ask", "r"));
    const ctx = fakeCtx({ answers: ["Allow once"] });
    assert.equal(await pi.toolCall(BASH, ctx), undefined);
    assert.equal(engine.approvals().length, 0);
    assert.deepEqual(ctx.notes, []);
  });

  test("Deny: blocked by the user", async () => {
    const { engine, pi } = setup(answer("ask", "r"));
    const ctx = fakeCtx({ answers: ["Deny"] });
    assert.deepEqual(await pi.toolCall(BASH, ctx), { block: true, reason: "[policy-engine] Blocked by user: bash" });
    assert.equal(engine.approvals().length, 0);
  });

  test("dismissed (select gives undefined): blocked by the user", async () => {
    const { pi } = setup(answer("ask", "r"));
    const ctx = fakeCtx({ answers: [undefined] });
    assert.deepEqual(await pi.toolCall(BASH, ctx), { block: true, reason: "[policy-engine] Blocked by user: bash" });
    assert.deepEqual(asked(ctx).length, 1);
  });

  test("an answer that is not one of the choices: blocked", async () => {
    const { pi } = setup(answer("ask", "r"));
    assert.deepEqual(await pi.toolCall(BASH, fakeCtx({ answers: ["Allow everything"] })), {
      block: true,
      reason: "[policy-engine] Blocked by user: bash",
    });
  });

  test("Allow for this session: `policy approve --session`, then the tool runs", async () => {
    const { engine, pi } = setup(answer("ask", "r"));
    const ctx = fakeCtx({ answers: ["Allow for this session"], sessionId: "sess-9" });
    assert.equal(await pi.toolCall(BASH, ctx), undefined);
    assert.deepEqual(engine.approvals().map((c) => c.args), [
      ["approve", "--session", "sess-9", "--cwd", CWD, "--tool", "bash", "--", "rm -rf build"],
    ]);
    assert.equal(engine.approvals()[0].file, "/opt/pe/bin/policy");
    assert.deepEqual(ctx.notes, []);
  });

  test("Allow for this session of a file tool passes the input as JSON", async () => {
    const { engine, pi } = setup(answer("ask", "r"));
    const input = { path: "src/a.ts", oldText: "a", newText: "b" };
    const ctx = fakeCtx({ answers: ["Allow for this session"], sessionId: "s" });
    assert.equal(await pi.toolCall({ toolName: "edit", toolCallId: "e1", input }, ctx), undefined);
    const [args] = engine.approvals().map((c) => c.args);
    assert.deepEqual(args.slice(0, 7), ["approve", "--session", "s", "--cwd", CWD, "--tool", "edit"]);
    assert.equal(args[7], "--input");
    assert.deepEqual(JSON.parse(args[8]), input);
    assert.equal(args.length, 9);
  });

  test("Allow for this session that cannot be recorded: a warning, and the tool still runs", async () => {
    const { pi } = setup(answer("ask", "r"), { code: 2, stderr: "nothing in this call asks for approval\n" });
    const ctx = fakeCtx({ answers: ["Allow for this session"] });
    assert.equal(await pi.toolCall(BASH, ctx), undefined);
    assert.equal(ctx.notes.length, 1);
    assert.equal(ctx.notes[0].type, "warning");
    assert.match(ctx.notes[0].message, /exited with status 2: nothing in this call asks for approval/);
  });

  test("Allow for this project: `policy approve --project`, then the tool runs", async () => {
    const { engine, pi } = setup(answer("ask", "r"));
    const ctx = fakeCtx({ answers: ["Allow for this project"] });
    assert.equal(await pi.toolCall(BASH, ctx), undefined);
    assert.deepEqual(engine.approvals().map((c) => c.args), [
      ["approve", "--project", "--cwd", CWD, "--tool", "bash", "--", "rm -rf build"],
    ]);
    assert.deepEqual(ctx.notes, [{ message: "[policy-engine] Approved bash for this project.", type: "info" }]);
  });

  test("Allow globally: `policy approve --user`, then the tool runs", async () => {
    const { engine, pi } = setup(answer("ask", "r"));
    const ctx = fakeCtx({ answers: ["Allow globally"] });
    const input = { path: "/tmp/notes.md", content: "x" };
    assert.equal(await pi.toolCall({ toolName: "write", toolCallId: "w1", input }, ctx), undefined);
    const [args] = engine.approvals().map((c) => c.args);
    assert.deepEqual(args, ["approve", "--user", "--cwd", CWD, "--tool", "write", "--input", JSON.stringify(input)]);
    assert.deepEqual(ctx.notes, [{ message: "[policy-engine] Approved write for all projects.", type: "info" }]);
  });

  for (const [choice, where] of [["Allow for this project", "this project"], ["Allow globally", "all projects"]]) {
    test(`${choice} that cannot be saved: the error is shown, and this call still runs`, async () => {
      const { pi } = setup(answer("ask", "r"), { code: 1, stderr: "project is not trusted: run `policy trust`\n" });
      const ctx = fakeCtx({ answers: [choice] });
      assert.equal(await pi.toolCall(BASH, ctx), undefined);
      assert.equal(ctx.notes.length, 1);
      assert.equal(ctx.notes[0].type, "error");
      assert.match(ctx.notes[0].message, new RegExp(`approval for ${where}: .*exited with status 1: project is not trusted`));
    });
  }

  test("an approve that cannot even start: the error is shown, and this call still runs", async () => {
    const { pi } = setup(answer("ask", "r"), { code: null, error: "spawn EACCES" });
    const ctx = fakeCtx({ answers: ["Allow globally"] });
    assert.equal(await pi.toolCall(BASH, ctx), undefined);
    assert.match(ctx.notes[0].message, /could not run \/opt\/pe\/bin\/policy: spawn EACCES/);
  });

  test("a UI that throws: blocked", async () => {
    const { pi } = setup(answer("ask", "r"));
    const result = await pi.toolCall(BASH, fakeCtx({ answers: [new Error("terminal gone")] }));
    assert.equal(result.block, true);
    assert.match(result.reason, /terminal gone/);
  });
});

describe("the engine failing: the call is blocked (fail closed)", () => {
  const failures = [
    ["exit status 2 with the reason on stderr", { code: 2, stderr: "policy: error: bad config ~/.config/policy-engine/policy.jsonc:3\n" },
      /exited with status 2: policy: error: bad config ~\/\.config\/policy-engine\/policy\.jsonc:3/],
    ["exit status 1 (a crash)", { code: 1, stderr: "Traceback (most recent call last):\n  ...\nKeyError: 'x'\n" },
      /exited with status 1: Traceback \(most recent call last\):[\s\S]*KeyError: 'x'/],
    ["exit status 1 with an answer on stdout", { code: 1, stdout: JSON.stringify({ action: "allow", reason: "" }) },
      /exited with status 1: \{"action":"allow"/],
    ["a non-zero exit that prints nothing", { code: 3 }, /exited with status 3 and printed nothing/],
    ["killed by a signal", { code: null, signal: "SIGSEGV" }, /was killed by SIGSEGV/],
    ["garbage on stdout", { code: 0, stdout: "Traceback? no: <html>" }, /not JSON: Traceback\? no: <html>/],
    ["nothing on stdout", { code: 0, stdout: "" }, /not JSON: \(nothing\)/],
    ["JSON that is not an object", { code: 0, stdout: "[1, 2]" }, /not a JSON object/],
    ["an unknown action", { code: 0, stdout: '{"action": "maybe", "reason": "r"}' }, /no valid action/],
    ["the executable missing", { code: null, error: "spawn /nope/policy ENOENT" }, /could not run \/opt\/pe\/bin\/policy: spawn \/nope\/policy ENOENT/],
    ["a timeout", { code: null, signal: "SIGKILL", timedOut: true }, /did not answer within 10 s/],
  ];
  for (const [name, reply, pattern] of failures) {
    test(name, async () => {
      const { pi } = setup(reply);
      const result = await pi.toolCall(BASH, fakeCtx());
      assert.equal(result?.block, true);
      assert.match(result.reason, /^\[policy-engine\] The policy engine failed, so bash is blocked: /);
      assert.match(result.reason, pattern);
    });
  }

  test("a RunCommand that throws", async () => {
    const { pi } = setup(new Error("EMFILE: too many open files"));
    const result = await pi.toolCall(BASH, fakeCtx());
    assert.equal(result.block, true);
    assert.match(result.reason, /EMFILE/);
  });

  test("very long output is shortened in the reason", async () => {
    const { pi } = setup({ code: 2, stderr: "x".repeat(10_000) });
    const result = await pi.toolCall(BASH, fakeCtx());
    assert.ok(result.reason.length < 2300, `reason of ${result.reason.length} characters`);
    assert.ok(result.reason.endsWith("…"));
  });
});

// ---------------------------------------------------------------------------------------------
// The real spawn path: an executable script stands in for `policy`.

describe("a real engine process (fake `policy` script via POLICY_ENGINE_BIN)", () => {
  const dir = mkdtempSync(join(tmpdir(), "policy-engine-pi-"));
  const bin = join(dir, "policy");
  const argvLog = join(dir, "argv.log");
  const stdinLog = join(dir, "stdin.log");
  const saved = process.env.POLICY_ENGINE_BIN;

  // Each run appends its argument count and then one argument a line; `hook` keeps its stdin and
  // answers with answer.json, or fails as `mode` says.
  writeFileSync(
    bin,
    `#!/bin/sh
dir='${dir}'
{ echo "$#"; for arg in "$@"; do printf '%s\\n' "$arg"; done; } >> "$dir/argv.log"
mode=$(cat "$dir/mode" 2>/dev/null)
if [ "$1" = approve ]; then
  if [ "$mode" = approve-fails ]; then echo "cannot write the policy file" >&2; exit 1; fi
  echo "approved"; exit 0
fi
cat > "$dir/stdin.log"
case "$mode" in
  fail) echo "policy: error: unknown key 'polices' in policy.jsonc" >&2; exit 2 ;;
  sleep) sleep 5 ;;
esac
cat "$dir/answer.json"
`,
  );
  chmodSync(bin, 0o755);

  const prepare = (reply, mode = "") => {
    writeFileSync(join(dir, "answer.json"), JSON.stringify(reply));
    writeFileSync(join(dir, "mode"), mode);
    writeFileSync(argvLog, "");
    process.env.POLICY_ENGINE_BIN = bin;
  };
  const runs = () => {
    const lines = readFileSync(argvLog, "utf8").split("\n");
    const result = [];
    for (let k = 0; k < lines.length && lines[k] !== ""; ) {
      const count = Number(lines[k]);
      result.push(lines.slice(k + 1, k + 1 + count));
      k += 1 + count;
    }
    return result;
  };

  after(() => {
    if (saved === undefined) delete process.env.POLICY_ENGINE_BIN;
    else process.env.POLICY_ENGINE_BIN = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  test("ask → Allow for this project: hook and approve get their arguments unchanged", async () => {
    prepare({ action: "ask", reason: "rm -rf asks here", message: null });
    const pi = fakePi(policyEngine);
    const command = `rm -rf "build dir" $HOME/x && echo '*' ; -n`;
    const ctx = fakeCtx({ answers: ["Allow for this project"], sessionId: "sess-1", cwd: dir });
    assert.equal(await pi.toolCall({ toolName: "bash", toolCallId: "t7", input: { command } }, ctx), undefined);
    assert.deepEqual(runs(), [
      ["hook", "--agent", "pi"],
      ["approve", "--project", "--cwd", dir, "--tool", "bash", "--", command],
    ]);
    assert.deepEqual(JSON.parse(readFileSync(stdinLog, "utf8")), {
      tool: "bash",
      input: { command },
      cwd: dir,
      session_id: "sess-1",
      tool_call_id: "t7",
    });
    assert.deepEqual(ctx.notes, [{ message: "[policy-engine] Approved bash for this project.", type: "info" }]);
  });

  test("ask → Allow for this session of an edit: --session and --input JSON", async () => {
    prepare({ action: "ask", reason: "edits outside src ask", message: null });
    const pi = fakePi(policyEngine);
    const input = { path: "../other/a b.txt", oldText: "it's", newText: 'say "hi"' };
    const ctx = fakeCtx({ answers: ["Allow for this session"], sessionId: "sess-2", cwd: dir });
    assert.equal(await pi.toolCall({ toolName: "edit", toolCallId: "t8", input }, ctx), undefined);
    const [hook, approve] = runs();
    assert.deepEqual(hook, ["hook", "--agent", "pi"]);
    assert.deepEqual(approve.slice(0, 8), ["approve", "--session", "sess-2", "--cwd", dir, "--tool", "edit", "--input"]);
    assert.deepEqual(JSON.parse(approve[8]), input);
    assert.deepEqual(ctx.notes, []);
  });

  test("Allow globally whose approve fails: notified, and the call runs", async () => {
    prepare({ action: "ask", reason: "r", message: null }, "approve-fails");
    const pi = fakePi(policyEngine);
    const ctx = fakeCtx({ answers: ["Allow globally"], cwd: dir });
    assert.equal(await pi.toolCall(BASH, ctx), undefined);
    assert.deepEqual(runs()[1].slice(0, 2), ["approve", "--user"]);
    assert.equal(ctx.notes[0].type, "error");
    assert.match(ctx.notes[0].message, /exited with status 1: cannot write the policy file/);
  });

  test("nudge through the real process", async () => {
    prepare({ action: "nudge", reason: "r", message: "use the project's venv" });
    const pi = fakePi(policyEngine);
    assert.equal(await pi.toolCall(BASH, fakeCtx({ cwd: dir })), undefined);
    const result = await pi.toolResult({ toolName: "bash", toolCallId: "t1", content: [{ type: "text", text: "ok" }] }, fakeCtx());
    assert.equal(result.content[0].text, "[policy-engine nudge] use the project's venv\n\n");
  });

  test("deny through the real process", async () => {
    prepare({ action: "deny", reason: "sudo is denied", message: null });
    const pi = fakePi(policyEngine);
    assert.deepEqual(await pi.toolCall(BASH, fakeCtx({ cwd: dir })), { block: true, reason: "sudo is denied" });
  });

  test("exit status 2: blocked with what it printed on stderr", async () => {
    prepare({ action: "allow", reason: "", message: null }, "fail");
    const pi = fakePi(policyEngine);
    const result = await pi.toolCall(BASH, fakeCtx({ cwd: dir }));
    assert.equal(result.block, true);
    assert.match(result.reason, /policy engine failed/);
    assert.match(result.reason, /exited with status 2: policy: error: unknown key 'polices' in policy\.jsonc/);
  });

  test("a missing executable: blocked", async () => {
    prepare({ action: "allow", reason: "", message: null });
    process.env.POLICY_ENGINE_BIN = join(dir, "no-such-policy");
    const pi = fakePi(policyEngine);
    const result = await pi.toolCall(BASH, fakeCtx({ cwd: dir }));
    assert.equal(result.block, true);
    assert.match(result.reason, /could not run .*no-such-policy: .*ENOENT/);
  });

  test("an engine that hangs: blocked when the time is up, without waiting for it", async () => {
    prepare({ action: "allow", reason: "", message: null }, "sleep");
    const pi = fakePi(createExtension({ timeoutMs: 300 }));
    const started = Date.now();
    const result = await pi.toolCall(BASH, fakeCtx({ cwd: dir }));
    assert.ok(Date.now() - started < 3000, `answered after ${Date.now() - started} ms`);
    assert.equal(result.block, true);
    assert.match(result.reason, /did not answer within 0\.3 s/);
  });
});
