// Unknown fields: the OpenAPI schemas (and so the validators generated from them) accept any
// extra field, where the API server refuses one (kubectl apply's strict field validation). The
// model packages ship the same schemas as TypeScript declarations (.d.ts) that list every field;
// this reads them and reports each field of an object that its type does not declare, so that a
// misspelt livenessProbe fails the test as it would fail kubectl apply.
"use strict";

const fs = require("fs");
const path = require("path");

const PRIMITIVES = new Set(["string", "number", "boolean", "any", "unknown", "null", "object",
                            "undefined", "never", "TypeMeta", "ModelData", "Model"]);

function tokenize(text) {
  const re = /"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[A-Za-z_$][\w$]*|-?\d+(?:\.\d+)?|[{}()[\]<>:;?|,=&]/g;
  return text.match(re) || [];
}

// A recursive-descent parser for the subset of TypeScript types the declarations use.
function parseType(tokens, pos) {
  const alternatives = [];
  let p = pos;
  if (tokens[p] === "|") p++;
  for (;;) {
    let [type, next] = parsePrimary(tokens, p);
    while (tokens[next] === "[" && tokens[next + 1] === "]") {
      type = { t: "array", of: type };
      next += 2;
    }
    alternatives.push(type);
    p = next;
    if (tokens[p] !== "|" && tokens[p] !== "&") break;
    p++;
  }
  return [alternatives.length === 1 ? alternatives[0] : { t: "union", of: alternatives }, p];
}

function parsePrimary(tokens, p) {
  const tok = tokens[p];
  if (tok === "{") return parseMembers(tokens, p + 1);
  if (tok === "(") {
    const [type, next] = parseType(tokens, p + 1);
    return [type, next + 1];  // ")"
  }
  if (/^["'\d-]/.test(tok)) return [{ t: "prim" }, p + 1];
  if (tokens[p + 1] === "<") {
    const args = [];
    let q = p + 2;
    for (;;) {
      const [arg, next] = parseType(tokens, q);
      args.push(arg);
      q = next;
      if (tokens[q] === ",") { q++; continue; }
      break;
    }
    q++;  // ">"
    if (tok === "Array") return [{ t: "array", of: args[0] }, q];
    if (tok === "Record") return [{ t: "object", props: {}, index: args[1] }, q];
    return [{ t: "prim" }, q];
  }
  if (PRIMITIVES.has(tok)) return [{ t: "prim" }, p + 1];
  return [{ t: "ref", name: tok }, p + 1];
}

function parseMembers(tokens, p) {
  const props = {};
  let index = null;
  while (tokens[p] !== "}") {
    if (tokens[p] === "[") {  // [key: string]: T;
      while (tokens[p] !== "]") p++;
      const [type, next] = parseType(tokens, p + 2);
      index = type;
      p = next;
    } else {
      const name = tokens[p].replace(/^["']|["']$/g, "");
      p++;
      if (tokens[p] === "?") p++;
      const [type, next] = parseType(tokens, p + 1);  // after ":"
      props[name] = type;
      p = next;
    }
    if (tokens[p] === ";" || tokens[p] === ",") p++;
  }
  return [{ t: "object", props, index }, p + 1];
}

function matchBrace(text, open) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === "{") depth++;
    else if (text[i] === "}" && --depth === 0) return i;
  }
  throw new Error("unbalanced braces");
}

const files = new Map();

// One .d.ts: its imports, its interfaces and type aliases, and the names it exports them as.
function loadFile(file) {
  if (files.has(file)) return files.get(file);
  const text = fs.readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "").replace(/\/\/.*$/gm, "");
  const info = { file, imports: new Map(), decls: new Map(), aliases: new Map() };
  for (const m of text.matchAll(/import\s*\{([^}]*)\}\s*from\s*"([^"]+)"/g)) {
    for (const part of m[1].split(",")) {
      const [imported, local] = part.trim().split(/\s+as\s+/);
      if (imported) info.imports.set(local || imported, { from: m[2], name: imported });
    }
  }
  for (const m of text.matchAll(/export\s*\{([^}]*)\}/g)) {
    for (const part of m[1].split(",")) {
      const [local, exported] = part.trim().split(/\s+as\s+/);
      if (local && exported) info.aliases.set(exported, local);
    }
  }
  for (const m of text.matchAll(/export\s+interface\s+(\w+)[^{]*\{/g)) {
    const open = m.index + m[0].length - 1;
    const body = text.slice(open, matchBrace(text, open) + 1);
    info.decls.set(m[1], () => parseType(tokenize(body), 0)[0]);
  }
  for (const m of text.matchAll(/export\s+declare\s+type\s+(\w+)\s*=\s*([^;]*);/g)) {
    info.decls.set(m[1], () => parseType(tokenize(m[2]), 0)[0]);
  }
  files.set(file, info);
  return info;
}

function declarationFile(from, base) {
  const stem = from.startsWith(".") ? path.resolve(path.dirname(base), from) : require.resolve(from).replace(/\.js$/, "");
  return stem.endsWith(".d.ts") ? stem : stem + ".d.ts";
}

// The type named `name` in `file`, with the file its own references resolve in.
function resolve(file, name, seen = 0) {
  if (seen > 20) throw new Error(`cannot resolve ${name}`);
  const info = loadFile(file);
  const local = info.aliases.get(name) || name;
  if (info.decls.has(local)) {
    const decl = info.decls.get(local);
    if (typeof decl === "function") info.decls.set(local, decl());
    return { type: info.decls.get(local), file };
  }
  const imported = info.imports.get(local);
  if (imported) return resolve(declarationFile(imported.from, file), imported.name, seen + 1);
  return { type: { t: "prim" }, file };  // a library type (TypeMeta, ...): nothing to check
}

// Each "where: unknown field" of `data` against the type.
function unknownFields(data, type, file, where, out) {
  if (type.t === "ref") {
    const r = resolve(file, type.name);
    return unknownFields(data, r.type, r.file, where, out);
  }
  if (type.t === "union") {
    const objects = type.of.map((alt) => (alt.t === "ref" ? resolve(file, alt.name) : { type: alt, file }))
      .filter((r) => r.type.t === "object" || r.type.t === "array");
    if (objects.length === 1) unknownFields(data, objects[0].type, objects[0].file, where, out);
    return out;
  }
  if (type.t === "array" && Array.isArray(data)) {
    data.forEach((item, i) => unknownFields(item, type.of, file, `${where}[${i}]`, out));
  } else if (type.t === "object" && data && typeof data === "object" && !Array.isArray(data)) {
    for (const [key, value] of Object.entries(data)) {
      if (Object.prototype.hasOwnProperty.call(type.props, key)) {
        unknownFields(value, type.props[key], file, `${where}.${key}`, out);
      } else if (type.index) {
        unknownFields(value, type.index, file, `${where}.${key}`, out);
      } else {
        const known = Object.keys(type.props).sort().join(", ");
        out.push(`${where}: unknown field "${key}" (known: ${known})`);
      }
    }
  }
  return out;
}

// The unknown fields of an object of the kind whose model `modulePath` (a require() path) is.
function check(modulePath, kind, object) {
  const file = declarationFile(modulePath, __filename);
  return unknownFields(object, { t: "ref", name: `I${kind}` }, file, kind, []);
}

module.exports = { check };
