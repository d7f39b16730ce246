// The type eraser the tests use on a node without type stripping (tools/ts-loader.mjs).

import { test } from "node:test";
import assert from "node:assert/strict";
import * as nodeModule from "node:module";
import { readFileSync } from "node:fs";
import { eraseTypes } from "../tools/ts-loader.mjs";

const run = async (ts) => {
  const js = eraseTypes(ts);
  assert.equal(js.length, ts.length, "same length");
  assert.equal(js.split("\n").length, ts.split("\n").length, "same lines");
  return import(`data:text/javascript,${encodeURIComponent(js)}`);
};

test("declarations and annotations are erased, the code runs", async () => {
  const mod = await run(`
import type { Foo } from "somewhere-that-does-not-exist";
export type { Foo };
type Pair<T> = { left: T; right: T } | null;
export interface Shape { kind: "a" | "b"; area(): number }
const limit: number = 3, none: string[] = [];
let later: ReturnType<typeof setTimeout> | undefined;
export function pick<T extends string>(items: T[], max?: number, fallback: T = items[0]): T | undefined {
  return items.slice(0, max ?? limit)[0] ?? fallback;
}
export const double = (n: number): number => n * 2;
export const area = async ({ w, h }: { w: number; h: number } = { w: 1, h: 1 }): Promise<number> => w * h;
export const cb = (fn: (x: number) => string = (x: number) => String(x)) => fn(4);
export const table = new Map<string, Array<number>>([["a", [1]]]);
export const obj = {
  type: "text",
  method(a: string, b?: string): string { return a + (b ?? ""); },
  get size(): number { return 2; },
};
export const cast = ("5" as unknown as string).length + (obj satisfies object ? 1 : 0);
const maybe: { v?: number } = { v: 1 };
export const sure = maybe.v! + 1;
export const pick2 = (c: boolean) => c ? (1) : (2);
export const tmpl = (x: number) => \`\${x > 1 ? "many" : "one"}: \${x}\`;
export const re = "a/b".replace(/\\//g, ":");
export function guard(x: unknown): x is string { return typeof x === "string"; }
try { JSON.parse("{"); } catch (err) { later = undefined; }
`);
  assert.equal(mod.pick(["x", "y"]), "x");
  assert.equal(mod.double(4), 8);
  assert.equal(await mod.area(), 1);
  assert.equal(await mod.area({ w: 2, h: 3 }), 6);
  assert.equal(mod.cb(), "4");
  assert.deepEqual([...mod.table], [["a", [1]]]);
  assert.equal(mod.obj.method("a", "b"), "ab");
  assert.equal(mod.obj.size, 2);
  assert.equal(mod.obj.type, "text");
  assert.equal(mod.cast, 2);
  assert.equal(mod.sure, 2);
  assert.equal(mod.pick2(false), 2);
  assert.equal(mod.tmpl(3), "many: 3");
  assert.equal(mod.re, "a:b");
  assert.equal(mod.guard("s"), true);
});

test("comparisons and conditionals are left alone", async () => {
  const mod = await run(`
const a = 1, b = 2, c = 3;
export const x = a < b && c > (a);
export const y = a < b ? b : c;
export const z = { a: a ? b : c };
`);
  assert.equal(mod.x, true);
  assert.equal(mod.y, 2);
  assert.deepEqual(mod.z, { a: 2 });
});

test("syntax that is not erasable, or not supported, is refused", () => {
  for (const ts of [
    "enum Color { Red }",
    "namespace N { export const a = 1; }",
    "declare const x: number;",
    "class A { constructor(private x: number) {} }",
    'import { type A, b } from "m";',
  ]) {
    assert.throws(() => eraseTypes(ts), /ts-loader: .* not supported/, ts);
  }
});

test("index.ts erases to what node's own type stripping gives", { skip: typeof nodeModule.stripTypeScriptTypes !== "function" && "this node has no stripTypeScriptTypes" }, () => {
  const source = readFileSync(new URL("../index.ts", import.meta.url), "utf8");
  assert.equal(eraseTypes(source), nodeModule.stripTypeScriptTypes(source, { mode: "strip" }));
});
