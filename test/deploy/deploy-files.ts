import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { parseAllDocuments } from 'yaml';

// Reading and checking the files under deploy/ and the Dockerfile, without Docker or a cluster.

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');

export interface DockerStage {
  from: string;
  name?: string;
  /** Instructions of the stage, continuation lines joined, comments dropped. */
  lines: string[];
}

/** The Dockerfile's stages (FROM ... [AS name]) with their instructions. */
export function dockerStages(text = read('Dockerfile')): DockerStage[] {
  const joined = text
    .split('\n')
    .filter((l) => !/^\s*#/.test(l))
    .join('\n')
    .replace(/\\\n/g, ' ');
  const stages: DockerStage[] = [];
  for (const raw of joined.split('\n')) {
    const line = raw.trim();
    if (!line) continue;
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line);
    if (from) stages.push({ from: from[1], name: from[2], lines: [] });
    else stages.at(-1)?.lines.push(line);
  }
  return stages;
}

/** KEY=value pairs of a stage's ENV instructions (the `ENV a=1 b=2` form). */
export function stageEnv(stage: DockerStage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const line of stage.lines.filter((l) => /^ENV\s/i.test(l))) {
    for (const m of line.slice(4).matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)/g)) env[m[1]] = m[2].replace(/^"|"$/g, '');
  }
  return env;
}

/** A Go duration as compose and Docker take it (`45s`, `1m30s`, `500ms`) in milliseconds. */
export function goDurationMs(text: string): number {
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
  if (!parts.length || parts.map((p) => p[0]).join('') !== text) throw new Error(`not a duration: ${text}`);
  return parts.reduce((sum, p) => sum + Number(p[1]) * units[p[2]], 0);
}

/** Parses every document of a YAML file; any error or warning is thrown with the file's name. */
export function parseYamlDocuments(path: string, options: { merge?: boolean } = {}): unknown[] {
  const docs = parseAllDocuments(read(path), { merge: options.merge ?? false, uniqueKeys: true, prettyErrors: true });
  if (!Array.isArray(docs)) throw new Error(`${path}: not a YAML stream`);
  const out: unknown[] = [];
  for (const doc of docs) {
    const problems = [...doc.errors, ...doc.warnings];
    if (problems.length) throw new Error(`${path}: ${problems.map((e) => e.message).join('; ')}`);
    const value = doc.toJS();
    if (value !== null && value !== undefined) out.push(value);
  }
  return out;
}

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

export interface LocatedObject {
  file: string;
  object: K8sObject;
}

export function k8sManifests(dir = 'deploy/k8s'): LocatedObject[] {
  return readdirSync(join(ROOT, dir))
    .filter((f) => /\.ya?ml$/.test(f))
    .sort()
    .flatMap((f) => parseYamlDocuments(join(dir, f)).map((object) => ({ file: join(dir, f), object: object as K8sObject })));
}

/** The kubernetes-models module of an apiVersion and kind: `v1` → v1/Kind, `apps/v1` → apps/v1/Kind. */
export const modelModule = (apiVersion: string, kind: string) => `kubernetes-models/${apiVersion}/${kind}`;

/**
 * Validates an object against its kind's schema (kubernetes-models, generated from the Kubernetes
 * OpenAPI document): required fields, types, formats, enums. Returns the problems (none: valid).
 */
export async function schemaProblems(object: K8sObject): Promise<string[]> {
  let mod: Record<string, unknown>;
  try {
    mod = (await import(modelModule(object.apiVersion, object.kind))) as Record<string, unknown>;
  } catch {
    return [`no schema for ${object.apiVersion} ${object.kind}`];
  }
  const Model = mod[object.kind] as (new (data: unknown) => { validate(): void }) | undefined;
  if (!Model) return [`no model ${object.kind} in ${modelModule(object.apiVersion, object.kind)}`];
  try {
    new Model(object).validate();
    return [];
  } catch (err) {
    return [(err as Error).message];
  }
}

/**
 * Fields the schemas do not know. Kubernetes' OpenAPI schemas allow unknown properties (the API
 * server drops them, so a misspelt `readinesProbe` would pass validation and vanish), so each
 * object is also type-checked as an object literal of its kubernetes-models interface, whose
 * excess-property check names every field that is not in the API. Returns, per object index,
 * TypeScript's messages.
 */
export function unknownFieldProblems(objects: K8sObject[]): Map<number, string[]> {
  const file = join(ROOT, 'test/deploy/__manifests__.ts');
  const starts: number[] = [];
  let line = 0;
  const parts = objects.map((o, i) => {
    const body = `export const m${i}: import('${modelModule(o.apiVersion, o.kind)}').I${o.kind} = ${JSON.stringify(o, null, 2)};\n`;
    starts.push(line);
    line += body.split('\n').length - 1;
    return body;
  });
  const source = parts.join('');
  const options: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    skipLibCheck: true,
    types: [],
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.getSourceFile = (name, lang, ...rest) => (name === file ? ts.createSourceFile(name, source, lang) : getSourceFile.call(host, name, lang, ...rest));
  host.fileExists = (name) => name === file || fileExists.call(host, name);
  host.readFile = (name) => (name === file ? source : readFile.call(host, name));
  const program = ts.createProgram([file], options, host);
  const problems = new Map<number, string[]>();
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const at = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : -1;
    let index = -1;
    if (d.file?.fileName === file) for (let i = 0; i < starts.length && starts[i] <= at; i++) index = i;
    const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    problems.set(index, [...(problems.get(index) ?? []), message]);
  }
  return problems;
}
