// A module loader hook that lets a node without built-in type stripping (node < 22.6, or 22.6 to
// 23.5 without --experimental-strip-types) import this directory's `.ts` files, for the tests only.
// pi itself loads the extension with its own TypeScript loader.
//
// It does what node's type stripping does: every type annotation is replaced by blanks, so the
// JavaScript left behind keeps its lines and columns. Where node offers `stripTypeScriptTypes`
// (22.13 and later) that is used; otherwise a small eraser below does it. The eraser knows the
// erasable subset of TypeScript that index.ts is written in, and refuses (throws) on syntax it
// does not support rather than guess:
//
//   type X<T> = ...;   interface X { ... }   import type ...;   export type { ... };
//   annotations on parameters, variables and return types (functions, arrows, methods);
//   optional parameters `x?: T`; generic parameters of functions `function f<T>(...)`;
//   type arguments of calls `new Map<string, number>()`; `x as T`, `x satisfies T`, `x!`.
//
// Not supported: classes with TypeScript modifiers, generic arrow functions, enums, namespaces,
// `declare`, decorators (enums, namespaces and parameter properties are not erasable anyway).

import { readFile } from "node:fs/promises";
import * as nodeModule from "node:module";

export async function load(url, context, nextLoad) {
  if (!url.startsWith("file:") || !/\.(ts|mts)$/.test(new URL(url).pathname)) {
    return nextLoad(url, context);
  }
  const source = await readFile(new URL(url), "utf8");
  return { format: "module", source: stripTypes(source), shortCircuit: true };
}

/** The JavaScript of a TypeScript source: its types replaced by blanks. */
export function stripTypes(source) {
  if (typeof nodeModule.stripTypeScriptTypes === "function") {
    return nodeModule.stripTypeScriptTypes(source, { mode: "strip" });
  }
  return eraseTypes(source);
}

// ---------------------------------------------------------------------------------------------
// Tokens

const PUNCTUATORS = [
  "...", "===", "!==", "**=", "<<=", "&&=", "||=", "??=",
  "=>", "==", "!=", "<=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=",
  "&=", "|=", "^=", "**", "<<",
];
// `>` is always a token of its own so that `Map<K, Array<V>>` closes two type argument lists.
const KEYWORDS_BEFORE_EXPRESSION = new Set([
  "return", "typeof", "case", "in", "of", "new", "delete", "void", "throw", "instanceof", "else",
  "do", "await", "yield",
]);

function isIdentStart(ch) {
  return /[\p{ID_Start}$_]/u.test(ch);
}

function isIdentPart(ch) {
  return /[\p{ID_Continue}$\u200c\u200d]/u.test(ch);
}

function fail(source, at, message) {
  const line = source.slice(0, at).split("\n").length;
  throw new SyntaxError(`ts-loader: ${message} (line ${line})`);
}

/** The significant tokens (no blanks, no comments) as {kind, value, start, end}. */
export function tokenize(source) {
  const tokens = [];
  const braces = []; // "{" for a brace, "${" for a template substitution
  let i = 0;
  const previous = () => tokens[tokens.length - 1];

  const regexAllowed = () => {
    const last = previous();
    if (!last) return true;
    if (last.kind === "ident") return KEYWORDS_BEFORE_EXPRESSION.has(last.value);
    if (last.kind === "punct") return ![")", "]"].includes(last.value);
    return false; // after a number, string or template
  };

  // Scans a template from `i` (just after "`" or "}") to "`" or "${".
  const scanTemplate = (start) => {
    while (i < source.length) {
      const ch = source[i];
      if (ch === "\\") {
        i += 2;
      } else if (ch === "`") {
        i += 1;
        tokens.push({ kind: "template", value: source.slice(start, i), start, end: i });
        return;
      } else if (ch === "$" && source[i + 1] === "{") {
        i += 2;
        braces.push("${");
        tokens.push({ kind: "template", value: source.slice(start, i), start, end: i });
        return;
      } else {
        i += 1;
      }
    }
    fail(source, start, "unterminated template literal");
  };

  while (i < source.length) {
    const ch = source[i];
    const start = i;
    if (/\s/.test(ch)) {
      i += 1;
    } else if (ch === "/" && source[i + 1] === "/") {
      while (i < source.length && source[i] !== "\n") i += 1;
    } else if (ch === "/" && source[i + 1] === "*") {
      const end = source.indexOf("*/", i + 2);
      if (end < 0) fail(source, start, "unterminated comment");
      i = end + 2;
    } else if (ch === '"' || ch === "'") {
      i += 1;
      while (i < source.length && source[i] !== ch) {
        if (source[i] === "\n") fail(source, start, "unterminated string");
        i += source[i] === "\\" ? 2 : 1;
      }
      if (i >= source.length) fail(source, start, "unterminated string");
      i += 1;
      tokens.push({ kind: "string", value: source.slice(start, i), start, end: i });
    } else if (ch === "`") {
      i += 1;
      scanTemplate(start);
    } else if (ch === "}" && braces[braces.length - 1] === "${") {
      braces.pop();
      i += 1;
      scanTemplate(start);
    } else if (/[0-9]/.test(ch) || (ch === "." && /[0-9]/.test(source[i + 1] ?? ""))) {
      i += 1;
      while (i < source.length && /[0-9A-Za-z_.]/.test(source[i])) {
        // an exponent's sign: 1e-3
        if (/[eE]/.test(source[i]) && /[+-]/.test(source[i + 1] ?? "") && !/^0[xX]/.test(source.slice(start, i))) i += 1;
        i += 1;
      }
      tokens.push({ kind: "number", value: source.slice(start, i), start, end: i });
    } else if (isIdentStart(ch) || ch === "#") {
      i += 1;
      while (i < source.length && isIdentPart(source[i])) i += 1;
      tokens.push({ kind: "ident", value: source.slice(start, i), start, end: i });
    } else if (ch === "/" && regexAllowed()) {
      let inClass = false;
      i += 1;
      while (i < source.length) {
        const c = source[i];
        if (c === "\n") fail(source, start, "unterminated regular expression");
        if (c === "\\") {
          i += 2;
          continue;
        }
        i += 1;
        if (c === "[") inClass = true;
        else if (c === "]") inClass = false;
        else if (c === "/" && !inClass) break;
      }
      while (i < source.length && isIdentPart(source[i])) i += 1; // flags
      tokens.push({ kind: "regex", value: source.slice(start, i), start, end: i });
    } else {
      let value = PUNCTUATORS.find((p) => source.startsWith(p, i)) ?? ch;
      // `a?.5:b` is a conditional, not optional chaining
      if (value === "?." && /[0-9]/.test(source[i + 2] ?? "")) value = "?";
      i += value.length;
      if (value === "{") braces.push("{");
      else if (value === "}") braces.pop();
      tokens.push({ kind: "punct", value, start, end: i });
    }
  }
  return tokens;
}

// ---------------------------------------------------------------------------------------------
// The eraser

const OPENERS = { "(": ")", "[": "]", "{": "}" };
const CONTROL_KEYWORDS = new Set(["if", "for", "while", "switch", "with", "catch"]);
const STATEMENT_KEYWORDS = new Set([
  "const", "let", "var", "if", "for", "while", "do", "return", "switch", "try", "throw", "break",
  "continue", "export",
]);
const NOT_A_METHOD_NAME = new Set([...CONTROL_KEYWORDS, ...KEYWORDS_BEFORE_EXPRESSION, "function", "super", "import"]);

export function eraseTypes(source) {
  const tokens = tokenize(source);
  const erased = new Array(tokens.length).fill(false);
  const spans = []; // [first, last) token indexes of each erased construct
  const match = matchBrackets(source, tokens);
  const handledParams = new Set();
  const at = (k) => tokens[k];
  const is = (k, value) => k >= 0 && k < tokens.length && tokens[k].kind !== "string" && tokens[k].value === value;
  const isIdent = (k) => k >= 0 && k < tokens.length && tokens[k].kind === "ident";
  const erase = (from, to) => {
    if (to <= from) return;
    for (let k = from; k < to; k += 1) erased[k] = true;
    spans.push([from, to]);
  };
  const unsupported = (k, what) => fail(source, at(k).start, `${what} is not supported`);

  // ---- types: each returns the index just after the type, or -1 when there is none ----

  const parseType = (k) => {
    if (is(k, "|") || is(k, "&")) k += 1;
    k = parsePostfixType(k);
    while (k > 0 && (is(k, "|") || is(k, "&"))) k = parsePostfixType(k + 1);
    if (k > 0 && is(k, "is") && isIdent(k + 1)) k = parseType(k + 1); // a type predicate
    return k;
  };

  const parsePostfixType = (k) => {
    k = parsePrimaryType(k);
    while (k > 0 && is(k, "[")) {
      if (is(k + 1, "]")) k += 2;
      else {
        const inner = parseType(k + 1);
        if (inner < 0 || !is(inner, "]")) return -1;
        k = inner + 1;
      }
    }
    return k;
  };

  const parseTypeArguments = (k) => {
    // k is at "<"
    k += 1;
    for (;;) {
      k = parseType(k);
      if (k < 0) return -1;
      if (is(k, ",")) k += 1;
      else break;
    }
    return is(k, ">") ? k + 1 : -1;
  };

  const parsePrimaryType = (k) => {
    if (k >= tokens.length) return -1;
    const token = at(k);
    if (token.kind === "string" || token.kind === "number") return k + 1;
    if (token.kind === "template") return token.value.endsWith("`") ? k + 1 : -1;
    if (is(k, "-") && at(k + 1)?.kind === "number") return k + 2;
    if (is(k, "(")) {
      const close = match.get(k);
      if (is(close + 1, "=>")) return parseType(close + 2); // a function type
      const inner = parseType(k + 1);
      return inner === close ? close + 1 : -1;
    }
    if (is(k, "{") || is(k, "[")) return match.get(k) + 1;
    if (!isIdent(k)) return -1;
    if (token.value === "new" && is(k + 1, "(")) return parsePrimaryType(k + 1);
    if (["typeof", "keyof", "readonly", "unique", "infer"].includes(token.value) && isIdent(k + 1)) {
      return token.value === "typeof" ? parseEntityName(k + 1) : parsePostfixType(k + 1);
    }
    if (token.value === "keyof" || token.value === "readonly") return parsePostfixType(k + 1);
    k = parseEntityName(k);
    if (is(k, "<")) k = parseTypeArguments(k);
    return k;
  };

  const parseEntityName = (k) => {
    k += 1;
    while (is(k, ".") && isIdent(k + 1)) k += 2;
    return k;
  };

  /** Erases ": Type" at k (which is at ":"); returns the index after the type. */
  const eraseAnnotation = (k) => {
    const end = parseType(k + 1);
    if (end < 0) unsupported(k, "this type annotation");
    erase(k, end);
    return end;
  };

  // ---- parameter lists ----

  /** Erases the types in the parameter list opening at `open`, and the return type after it. */
  const handleParams = (open) => {
    handledParams.add(open);
    const close = match.get(open);
    let k = open + 1;
    while (k < close) {
      // one parameter: [...] binding [?] [: type] [= default]
      if (is(k, "...")) k += 1;
      if (["public", "private", "protected", "readonly", "override"].includes(at(k).value) && isIdent(k + 1)) {
        unsupported(k, "a parameter property");
      }
      if (is(k, "{") || is(k, "[")) k = match.get(k) + 1;
      else if (isIdent(k)) k += 1;
      if (is(k, "?")) {
        erase(k, k + 1);
        k += 1;
      }
      if (is(k, ":")) k = eraseAnnotation(k);
      // skip a default value up to the next parameter (the main walk erases inside it)
      while (k < close && !is(k, ",")) k = OPENERS[at(k).value] && at(k).kind === "punct" ? match.get(k) + 1 : k + 1;
      k += 1;
    }
    if (is(close + 1, ":")) eraseAnnotation(close + 1);
  };

  /** Whether the "(" at k opens the parameters of an arrow function or a method. */
  const opensParams = (k) => {
    const close = match.get(k);
    if (is(close + 1, "=>")) return true;
    const before = k > 0 ? at(k - 1) : undefined;
    if (before?.kind === "ident" && before.value === "catch") return true;
    const methodName =
      before !== undefined &&
      (before.kind === "string" || before.kind === "number" || before.value === "]" ||
        (before.kind === "ident" && !NOT_A_METHOD_NAME.has(before.value))) &&
      !(k > 1 && is(k - 2, "."));
    if (methodName && is(close + 1, "{")) return true;
    if (is(close + 1, ":")) {
      const end = parseType(close + 2);
      if (end > 0 && is(end, "=>")) return true;
      if (end > 0 && methodName && is(end, "{")) return true;
    }
    return false;
  };

  // ---- the walk ----

  const expressionEnd = (k) => {
    if (k < 0) return false;
    const token = at(k);
    if (token.kind === "ident") return !KEYWORDS_BEFORE_EXPRESSION.has(token.value);
    if (token.kind === "template") return token.value.endsWith("`");
    if (token.kind === "punct") return [")", "]", "}"].includes(token.value);
    return true; // string, number, regex
  };
  const statementStart = (k) => k === 0 || [";", "{", "}"].includes(at(k - 1).value) || is(k - 1, "export");
  const specifierBraces = new Set(); // the braces of `import { a as b }` and `export { a as b }`

  for (let k = 0; k < tokens.length; k += 1) {
    if (erased[k]) continue;
    const token = at(k);
    const value = token.kind === "string" || token.kind === "template" ? null : token.value;

    if (token.kind === "ident" && statementStart(k)) {
      const from = k > 0 && is(k - 1, "export") && !erased[k - 1] ? k - 1 : k;
      if (value === "type" && isIdent(k + 1) && (is(k + 2, "=") || is(k + 2, "<"))) {
        let j = k + 2;
        if (is(j, "<")) j = skipAngles(j);
        const end = parseType(j + 1);
        if (end < 0) unsupported(k, "this type alias");
        erase(from, is(end, ";") ? end + 1 : end);
        continue;
      }
      if (value === "interface" && isIdent(k + 1)) {
        let j = k + 2;
        while (j < tokens.length && !is(j, "{")) j += 1;
        erase(from, match.get(j) + 1);
        continue;
      }
      if (value === "type" && from === k - 1 && is(k + 1, "{")) {
        // export type { A, B } [from "x"];
        let end = match.get(k + 1) + 1;
        if (is(end, "from")) end += 2;
        erase(from, is(end, ";") ? end + 1 : end);
        continue;
      }
      if (["enum", "namespace", "module", "declare", "abstract"].includes(value) && isIdent(k + 1)) {
        unsupported(k, `\`${value}\``);
      }
      if (value === "const" && is(k + 1, "enum")) unsupported(k, "`const enum`");
    }

    if (value === "import" && (statementStart(k) || is(k - 1, "export"))) {
      if (is(k + 1, "type") && !is(k + 2, "from") && !is(k + 2, ",")) {
        let j = k + 2;
        while (j < tokens.length && !is(j, "from")) j += 1;
        erase(k, is(j + 2, ";") ? j + 3 : j + 2);
        continue;
      }
    }
    if ((value === "import" || value === "export") && is(k + 1, "{")) specifierBraces.add(k + 1);
    if (value === "{" && specifierBraces.has(k)) {
      // skip the specifiers; `type` ones are not supported (they would leave a side-effect import)
      for (let j = k + 1; j < match.get(k); j += 1) {
        if (is(j, "type") && isIdent(j + 1) && !is(j + 1, "as")) unsupported(j, "an inline `type` specifier");
      }
      k = match.get(k);
      continue;
    }

    if (value === "class" && !is(k - 1, ".") && (isIdent(k + 1) || is(k + 1, "{"))) unsupported(k, "a class");

    if (value === "const" || value === "let" || value === "var") {
      // each declarator: binding [!] [: type] [= initializer], separated by commas
      let j = k + 1;
      for (;;) {
        if (is(j, "{") || is(j, "[")) j = match.get(j) + 1;
        else if (isIdent(j)) j += 1;
        else break;
        if (is(j, "!") && is(j + 1, ":")) {
          erase(j, j + 1);
          j += 1;
        }
        if (is(j, ":")) j = eraseAnnotation(j);
        if (is(j, "=")) j = skipInitializer(j + 1); // the main walk erases inside it later
        if (is(j, ",")) j += 1;
        else break;
      }
      continue;
    }

    if (value === "function") {
      let j = k + 1;
      if (is(j, "*")) j += 1;
      if (isIdent(j)) j += 1;
      if (is(j, "<")) {
        const end = skipAngles(j);
        erase(j, end);
        j = end;
      }
      if (!is(j, "(")) unsupported(k, "this function declaration");
      handleParams(j);
      continue;
    }

    if (value === "(" && token.kind === "punct" && !handledParams.has(k) && opensParams(k)) {
      handleParams(k);
      continue;
    }

    if (value === "<" && token.kind === "punct" && k > 0 && isIdent(k - 1)) {
      // type arguments of a call: f<T>(...), new Map<K, V>()
      const end = parseTypeArguments(k);
      if (end > 0 && is(end, "(")) {
        erase(k, end);
        k = end - 1;
      }
      continue;
    }

    if ((value === "as" || value === "satisfies") && expressionEnd(k - 1)) {
      if (is(k + 1, "const")) {
        erase(k, k + 2);
        continue;
      }
      const end = parseType(k + 1);
      if (end > 0) {
        erase(k, end);
        k = end - 1;
      }
      continue;
    }

    // After an operand on the same line, "!" cannot be a prefix "not": a non-null assertion.
    if (value === "!" && token.kind === "punct" && expressionEnd(k - 1) &&
        !source.slice(at(k - 1).end, token.start).includes("\n")) {
      erase(k, k + 1);
      continue;
    }
  }

  // Blanks each erased construct from its first to its last character (comments inside it
  // included), keeping line breaks so that lines and columns stay where they were.
  const chars = source.split("");
  for (const [from, to] of spans) {
    for (let c = tokens[from].start; c < tokens[to - 1].end; c += 1) {
      if (chars[c] !== "\n" && chars[c] !== "\r") chars[c] = " ";
    }
  }
  return chars.join("");

  function skipInitializer(j) {
    // An initializer ends at a comma (the comma operator needs parentheses there), a semicolon,
    // a bracket it did not open, or a keyword that starts the next statement.
    for (; j < tokens.length; j += 1) {
      const token = at(j);
      if (token.kind === "punct" && OPENERS[token.value]) j = match.get(j);
      else if (token.kind === "punct" && [",", ";", ")", "]", "}"].includes(token.value)) return j;
      else if (token.kind === "ident" && STATEMENT_KEYWORDS.has(token.value) && !is(j - 1, ".")) return j;
    }
    return j;
  }

  function skipAngles(j) {
    // j is at "<": generic parameters, e.g. <T extends string = "a">
    let depth = 0;
    for (; j < tokens.length; j += 1) {
      if (is(j, "<")) depth += 1;
      else if (is(j, ">")) {
        depth -= 1;
        if (depth === 0) return j + 1;
      } else if (is(j, "(") || is(j, "[") || is(j, "{")) j = match.get(j);
    }
    return unsupported(j - 1, "this generic parameter list");
  }
}

/** Maps the index of every opening bracket token to its closing one. */
function matchBrackets(source, tokens) {
  const match = new Map();
  const stack = [];
  tokens.forEach((token, k) => {
    if (token.kind !== "punct") return;
    if (OPENERS[token.value]) stack.push(k);
    else if ([")", "]", "}"].includes(token.value)) {
      const open = stack.pop();
      if (open === undefined || OPENERS[tokens[open].value] !== token.value) {
        fail(source, token.start, `unbalanced "${token.value}"`);
      }
      match.set(open, k);
    }
  });
  if (stack.length) fail(source, tokens[stack[stack.length - 1]].start, "unclosed bracket");
  return match;
}
